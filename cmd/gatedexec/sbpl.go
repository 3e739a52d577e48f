package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gatedexec/gatedexec/gate"
)

// printSBPL prints a Seatbelt policy, then its parameters as comments
// with quoted values (a path may hold a newline).
func printSBPL(w io.Writer, pol *gate.SBPLPolicy, asJSON bool) error {
	if asJSON {
		params := make(map[string]string, len(pol.Params))
		for _, kv := range pol.Params {
			params[kv.Key] = kv.Value
		}
		return writeJSON(w, struct {
			SBPL   string            `json:"sbpl"`
			Params map[string]string `json:"params"`
			Args   []string          `json:"args"`
		}{pol.Text, params, pol.Args})
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
