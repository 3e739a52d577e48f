package execpolicy

import (
	"maps"
	"slices"
)

// HostExecutableNames returns the names p declares host executables for,
// sorted.
func (p *Policy) HostExecutableNames() []string {
	return slices.Sorted(maps.Keys(p.hostExecutables))
}

// WithoutHostExecutables returns a copy of p without its host_executable
// declarations for names, and the names it dropped. A layer below a
// managed one may not add paths to a name the managed layer declared:
// the managed allow rules of that name would then match a program of
// the lower layer's choosing. (For a name the managed layer leaves
// undeclared, a lower declaration only narrows the fallback, and stays.)
func (p *Policy) WithoutHostExecutables(names []string) (*Policy, []string) {
	var dropped []string
	for _, n := range names {
		if _, ok := p.hostExecutables[n]; ok {
			dropped = append(dropped, n)
		}
	}
	if len(dropped) == 0 {
		return p, nil
	}
	q := *p
	q.hostExecutables = maps.Clone(p.hostExecutables)
	for _, n := range dropped {
		delete(q.hostExecutables, n)
	}
	return &q, dropped
}

// WithoutNetworkAllows returns p without its allow network_rules, and the
// hosts they named, its prompt rules made NarrowOnly. Under a managed
// layer that lists the profiles a run may use, the hosts of those
// profiles are the network's ceiling: a lower layer's allow would add a
// host (or an address, loopback or metadata included) to a profile the
// managed layer chose, which is a wider profile, and so would its prompt
// for a host no other rule names (refused, not asked about, without it).
// Its forbidden rules and its prompts for hosts others allow only narrow,
// and stay.
func (p *Policy) WithoutNetworkAllows() (*Policy, []string) {
	kept := make([]NetworkRule, 0, len(p.network))
	var dropped []string
	for _, n := range p.network {
		switch n.Decision {
		case Allow:
			dropped = append(dropped, n.Host)
			continue
		case Prompt:
			n.NarrowOnly = true
		}
		kept = append(kept, n)
	}
	q := *p
	q.network = kept
	return &q, dropped
}
