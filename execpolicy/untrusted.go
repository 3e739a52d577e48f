package execpolicy

// RestrictOnly returns a copy of p that keeps only what can make a decision
// stricter: its prompt and forbidden prefix rules and its sources (so the
// digest still covers them). Allow rules, allow network rules and
// host_executable declarations are dropped, since each of them can widen
// what runs: a host_executable from an untrusted layer could let
// /tmp/evil/git match a trusted layer's allow rules for git.
func (p *Policy) RestrictOnly() *Policy {
	q := NewPolicy()
	for _, b := range p.byProgram {
		for _, r := range b.all() {
			if r.Decision == Allow {
				continue
			}
			// A profile= from an untrusted layer could widen the sandbox
			// of a command once it is approved.
			c := *r
			c.Profile = ""
			q.add(&c)
		}
	}
	for _, n := range p.network {
		if n.Decision != Allow {
			// A host no rule matches is refused: a prompt for it would
			// be looser than nothing, so it only narrows others' hosts.
			n.NarrowOnly = n.NarrowOnly || n.Decision == Prompt
			q.network = append(q.network, n)
		}
	}
	q.sources = append(q.sources, p.sources...)
	q.nexamples = p.nexamples
	return q
}
