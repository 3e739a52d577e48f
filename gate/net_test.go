package gate

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// TestNetworkRulesPrivate: an exact network_rule reaches the private
// answers of its host, unless an approval wrote it (the approver saw a
// name, not where it resolves) or it does not allow.
func TestNetworkRulesPrivate(t *testing.T) {
	prof := &sandbox.Profile{Network: sandbox.NetworkProxy}
	rules := []execpolicy.NetworkRule{
		{Host: "git.corp", Decision: execpolicy.Allow},
		{Host: "approved.example", Decision: execpolicy.Allow, Justification: execpolicy.ApprovedJustification},
		{Host: "asked.example", Decision: execpolicy.Prompt},
	}
	want := map[string]bool{"git.corp": true, "approved.example": false, "asked.example": false}
	got := withNetworkRules(prof, rules)
	if len(got.Hosts.Rules) != len(rules) {
		t.Fatalf("host rules %+v, want one per network_rule", got.Hosts.Rules)
	}
	for _, r := range got.Hosts.Rules {
		if r.Private != want[r.Pattern] {
			t.Errorf("%s: private answers allowed %v, want %v", r.Pattern, r.Private, want[r.Pattern])
		}
	}
	if len(prof.Hosts.Rules) != 0 {
		t.Errorf("the profile given was changed: %+v", prof.Hosts.Rules)
	}
}

// TestApprovedRuleLoads: the line an "always" answer writes loads back as
// a rule that allows public addresses only.
func TestApprovedRuleLoads(t *testing.T) {
	line := execpolicy.FormatApprovedNetworkRule("later.test")
	p, err := execpolicy.Loader{}.Load("default.rules", []byte(line+"\n"))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	nr := p.NetworkRules()
	if len(nr) != 1 || nr[0].Host != "later.test" || !nr[0].PublicOnly() {
		t.Errorf("%s loads as %+v, want one public-only rule for later.test", line, nr)
	}
}

// TestNetworkRuleAddresses: a network_rule naming an address in another
// spelling judges the connections to that address: a forbidden one beats
// an allow of the canonical spelling.
func TestNetworkRuleAddresses(t *testing.T) {
	prof := &sandbox.Profile{Network: sandbox.NetworkProxy}
	for _, c := range []struct{ spelt, dialled string }{
		{"0:0::1", "::1"}, {"::ffff:10.0.0.1", "10.0.0.1"}, {"2001:DB8:0::1", "2001:db8::1"}, {"10.0.0.1", "10.0.0.1"},
	} {
		got := withNetworkRules(prof, []execpolicy.NetworkRule{
			{Host: netip.MustParseAddr(c.dialled).String(), Decision: execpolicy.Allow},
			{Host: strings.ToLower(c.spelt), Decision: execpolicy.Forbidden},
		})
		if d, _ := got.Hosts.JudgeAddr(netip.MustParseAddr(c.dialled)); d != egress.Deny {
			t.Errorf("forbidden %s, allowed %s: a connection to %s is %v, want deny", c.spelt, c.dialled, c.dialled, d)
		}
	}
}
