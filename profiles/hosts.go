package profiles

import (
	"fmt"
	"strings"

	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// hostPolicy builds the host policy of network mode "proxy" from
// allow_hosts, deny_hosts and connect_to. Each rule's source names the
// file and line of its key, for the audit record and `profiles show`.
func hostPolicy(m *File, src source) (egress.Policy, error) {
	var pol egress.Policy
	lists := []struct {
		key  string
		list *[]string
		d    egress.Decision
	}{
		{"network.allow_hosts", m.Network.AllowHosts, egress.Allow},
		{"network.deny_hosts", m.Network.DenyHosts, egress.Deny},
	}
	for _, l := range lists {
		if l.list == nil {
			continue
		}
		where := l.key
		if f := src[l.key]; f != nil {
			where = fmt.Sprintf("%s:%d: %s", f.Name, f.Line(l.key), l.key)
		}
		for _, e := range *l.list {
			if strings.HasPrefix(e, ":") {
				hosts, ok := egress.Preset(e)
				if !ok {
					return pol, src.elemErrorf(l.key, e, "unknown preset %q (presets: %s)", e, strings.Join(egress.PresetNames(), ", "))
				}
				for _, h := range hosts {
					pol.Rules = append(pol.Rules, egress.Rule{Pattern: h, Decision: l.d, Source: where + " " + e})
				}
				continue
			}
			pat, err := egress.ParsePattern(e)
			if err != nil {
				return pol, src.elemErrorf(l.key, e, "%v", err)
			}
			// An exact name is this one host, so where its answers point
			// is its author's choice; a suffix is anyone's below it.
			pol.Rules = append(pol.Rules, egress.Rule{Pattern: pat, Decision: l.d, Source: where,
				Private: l.d == egress.Allow && !strings.HasPrefix(pat, "*.")})
		}
	}
	if m.Network.ConnectTo != nil {
		for _, e := range *m.Network.ConnectTo {
			pin, err := egress.ParsePin(e)
			if err != nil {
				return pol, src.elemErrorf("network.connect_to", e, "%v", err)
			}
			pol.Pins = append(pol.Pins, pin)
		}
	}
	return pol, nil
}
