package approval

import (
	"github.com/gatedexec/gatedexec/internal/jsonstr"
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// appendProfile appends p as encoding/json writes a sandbox.Profile (no
// field tags: every exported field under its own name, nil lists as
// null), without HTML escaping. ProfileDigest hashes it; writing it by
// hand spares every run encoding/json's reflection over Profile and the
// types in it, about half a millisecond of a cold start.
// TestProfileJSON holds it to encoding/json's output.
func appendProfile(b []byte, p *sandbox.Profile) []byte {
	o := jsonstr.Object{B: b}
	o.String("Name", p.Name)
	o.String("Description", p.Description)
	o.String("Enforcement", string(p.Enforcement))
	o.Bool("Unrestricted", p.Unrestricted)
	o.Bool("ReadAll", p.ReadAll)
	jsonstr.List(&o, "Read", p.Read, jsonstr.Append)
	jsonstr.List(&o, "Write", p.Write, jsonstr.Append)
	jsonstr.List(&o, "Protect", p.Protect, jsonstr.Append)
	jsonstr.List(&o, "Hide", p.Hide, jsonstr.Append)
	jsonstr.List(&o, "MakeDirs", p.MakeDirs, jsonstr.Append)
	jsonstr.List(&o, "Control", p.Control, jsonstr.Append)
	jsonstr.List(&o, "PrivateTmp", p.PrivateTmp, jsonstr.Append)
	o.String("Network", string(p.Network))
	o.Key("Hosts")
	o.B = appendHosts(o.B, &p.Hosts)
	o.Bool("UnixSockets", p.UnixSockets)
	jsonstr.List(&o, "Sockets", p.Sockets, jsonstr.Append)
	jsonstr.List(&o, "EnvDeny", p.EnvDeny, jsonstr.Append)
	o.Bool("NoSetsid", p.NoSetsid)
	o.Bool("SharePIDs", p.SharePIDs)
	o.Bool("NoPty", p.NoPty)
	o.Key("Limits")
	o.B = appendLimits(o.B, p.Limits)
	o.String("Workspace", p.Workspace)
	jsonstr.List(&o, "Watch", p.Watch, jsonstr.Append)
	b, _ = o.Close()
	return b
}

func appendLimits(b []byte, l sandbox.Limits) []byte {
	o := jsonstr.Object{B: b}
	o.Uint("NoFile", l.NoFile)
	o.Uint("NProc", l.NProc)
	o.Uint("FSize", l.FSize)
	o.Uint("CPU", l.CPU)
	o.Uint("AS", l.AS)
	o.Uint("Memory", l.Memory)
	o.Int("MemoryPercent", int64(l.MemoryPercent))
	o.Int("Timeout", int64(l.Timeout))
	b, _ = o.Close()
	return b
}

func appendHosts(b []byte, h *egress.Policy) []byte {
	o := jsonstr.Object{B: b}
	jsonstr.List(&o, "Rules", h.Rules, appendHostRule)
	jsonstr.List(&o, "Pins", h.Pins, appendPin)
	b, _ = o.Close()
	return b
}

func appendHostRule(b []byte, r egress.Rule) []byte {
	o := jsonstr.Object{B: b}
	o.String("Pattern", r.Pattern)
	o.Int("Decision", int64(r.Decision))
	o.String("Source", r.Source)
	o.Bool("Private", r.Private)
	o.Bool("NarrowOnly", r.NarrowOnly)
	b, _ = o.Close()
	return b
}

func appendPin(b []byte, p egress.Pin) []byte {
	o := jsonstr.Object{B: b}
	o.String("Host", p.Host)
	o.Uint("Port", uint64(p.Port))
	// As encoding/json writes it: its text form, which for the zero
	// AddrPort is "", not String's "invalid AddrPort".
	to, _ := p.To.MarshalText()
	o.String("To", string(to))
	b, _ = o.Close()
	return b
}
