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
	o := object{b: b}
	o.string("Name", p.Name)
	o.string("Description", p.Description)
	o.string("Enforcement", string(p.Enforcement))
	o.bool("Unrestricted", p.Unrestricted)
	o.bool("ReadAll", p.ReadAll)
	list(&o, "Read", p.Read, jsonstr.Append)
	list(&o, "Write", p.Write, jsonstr.Append)
	list(&o, "Protect", p.Protect, jsonstr.Append)
	list(&o, "Hide", p.Hide, jsonstr.Append)
	list(&o, "MakeDirs", p.MakeDirs, jsonstr.Append)
	list(&o, "Control", p.Control, jsonstr.Append)
	list(&o, "PrivateTmp", p.PrivateTmp, jsonstr.Append)
	o.string("Network", string(p.Network))
	o.key("Hosts")
	o.b = appendHosts(o.b, &p.Hosts)
	o.bool("UnixSockets", p.UnixSockets)
	list(&o, "Sockets", p.Sockets, jsonstr.Append)
	list(&o, "EnvDeny", p.EnvDeny, jsonstr.Append)
	o.bool("NoSetsid", p.NoSetsid)
	o.bool("SharePIDs", p.SharePIDs)
	o.bool("NoPty", p.NoPty)
	o.key("Limits")
	o.b = appendLimits(o.b, p.Limits)
	o.string("Workspace", p.Workspace)
	b, _ = o.close()
	return b
}

func appendLimits(b []byte, l sandbox.Limits) []byte {
	o := object{b: b}
	o.uint("NoFile", l.NoFile)
	o.uint("NProc", l.NProc)
	o.uint("FSize", l.FSize)
	o.uint("CPU", l.CPU)
	o.uint("AS", l.AS)
	o.uint("Memory", l.Memory)
	o.int("MemoryPercent", int64(l.MemoryPercent))
	o.int("Timeout", int64(l.Timeout))
	b, _ = o.close()
	return b
}

func appendHosts(b []byte, h *egress.Policy) []byte {
	o := object{b: b}
	list(&o, "Rules", h.Rules, appendHostRule)
	list(&o, "Pins", h.Pins, appendPin)
	b, _ = o.close()
	return b
}

func appendHostRule(b []byte, r egress.Rule) []byte {
	o := object{b: b}
	o.string("Pattern", r.Pattern)
	o.int("Decision", int64(r.Decision))
	o.string("Source", r.Source)
	o.bool("Private", r.Private)
	b, _ = o.close()
	return b
}

func appendPin(b []byte, p egress.Pin) []byte {
	o := object{b: b}
	o.string("Host", p.Host)
	o.uint("Port", uint64(p.Port))
	// As encoding/json writes it: its text form, which for the zero
	// AddrPort is "", not String's "invalid AddrPort".
	to, _ := p.To.MarshalText()
	o.string("To", string(to))
	b, _ = o.close()
	return b
}
