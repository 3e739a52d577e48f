package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/darwin"
)

// printSBPL prints the Seatbelt policy p generates, then its parameters as
// comments with quoted values (a path may hold a newline). Paths are
// canonicalised on this host, so on Linux the output shows what macOS
// would get for the same paths, minus macOS-only symlinks.
func printSBPL(w io.Writer, p *sandbox.Profile, asJSON bool) error {
	pol, err := darwin.Generate(p)
	if err != nil {
		return withCode(exitConfig, fmt.Errorf("profiles show: %w", err))
	}
	if asJSON {
		params := make(map[string]string, len(pol.Params))
		for _, kv := range pol.Params {
			params[kv.Key] = kv.Value
		}
		return writeJSON(w, struct {
			SBPL   string            `json:"sbpl"`
			Params map[string]string `json:"params"`
			Args   []string          `json:"args"`
		}{pol.Text, params, pol.Args()})
	}
	if _, err := io.WriteString(w, pol.Text); err != nil {
		return err
	}
	for _, kv := range pol.Params {
		if _, err := fmt.Fprintf(w, "; -D%s=%s\n", kv.Key, strconv.Quote(kv.Value)); err != nil {
			return err
		}
	}
	return nil
}
