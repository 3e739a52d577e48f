package gate

import (
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/darwin"
)

// SBPLPolicy is the macOS Seatbelt policy a profile generates.
type SBPLPolicy struct {
	Text string
	// Params are the -D parameters, in order.
	Params []SBPLParam
	// Args are Params as sandbox-exec arguments.
	Args []string
}

// SBPLParam is one -DKEY=VALUE parameter of a Seatbelt policy.
type SBPLParam struct{ Key, Value string }

// SBPL generates the Seatbelt policy of p. Paths are canonicalised on
// this host, so on Linux it shows what macOS would get for the same
// paths, minus macOS-only symlinks.
func SBPL(p *sandbox.Profile) (*SBPLPolicy, error) {
	pol, err := darwin.Generate(p)
	if err != nil {
		return nil, err
	}
	out := &SBPLPolicy{Text: pol.Text, Args: pol.Args()}
	for _, kv := range pol.Params {
		out.Params = append(out.Params, SBPLParam{kv.Key, kv.Value})
	}
	return out, nil
}
