package approval

import (
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
	o.strings("Read", p.Read)
	o.strings("Write", p.Write)
	o.strings("Protect", p.Protect)
	o.strings("Hide", p.Hide)
	o.strings("MakeDirs", p.MakeDirs)
	o.strings("Control", p.Control)
	o.strings("PrivateTmp", p.PrivateTmp)
	o.string("Network", string(p.Network))
	o.key("Hosts")
	o.b = appendHosts(o.b, &p.Hosts)
	o.bool("UnixSockets", p.UnixSockets)
	o.strings("Sockets", p.Sockets)
	o.strings("EnvDeny", p.EnvDeny)
	o.bool("NoSetsid", p.NoSetsid)
	o.bool("SharePIDs", p.SharePIDs)
	o.bool("NoPty", p.NoPty)
	o.key("Limits")
	l := p.Limits
	lo := object{b: o.b}
	lo.uint("NoFile", l.NoFile)
	lo.uint("NProc", l.NProc)
	lo.uint("FSize", l.FSize)
	lo.uint("CPU", l.CPU)
	lo.uint("AS", l.AS)
	lo.uint("Memory", l.Memory)
	lo.int("MemoryPercent", int64(l.MemoryPercent))
	lo.int("Timeout", int64(l.Timeout))
	o.b, _ = lo.close()
	o.string("Workspace", p.Workspace)
	b, _ = o.close()
	return b
}

func appendHosts(b []byte, h *egress.Policy) []byte {
	o := object{b: b}
	o.key("Rules")
	if h.Rules == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = append(o.b, '[')
		for i, r := range h.Rules {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			ro := object{b: o.b}
			ro.string("Pattern", r.Pattern)
			ro.int("Decision", int64(r.Decision))
			ro.string("Source", r.Source)
			ro.bool("Private", r.Private)
			o.b, _ = ro.close()
		}
		o.b = append(o.b, ']')
	}
	o.key("Pins")
	if h.Pins == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = append(o.b, '[')
		for i, p := range h.Pins {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			po := object{b: o.b}
			po.string("Host", p.Host)
			po.uint("Port", uint64(p.Port))
			// As encoding/json writes it: its text form, which for
			// the zero AddrPort is "", not String's "invalid AddrPort".
			to, _ := p.To.MarshalText()
			po.string("To", string(to))
			o.b, _ = po.close()
		}
		o.b = append(o.b, ']')
	}
	b, _ = o.close()
	return b
}
