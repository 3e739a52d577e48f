package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Under a managed allowed_profiles the user's allow network_rules are
// dropped, so an "always" answer to a prompt network_rule, which writes
// one, would change nothing while saying a rule was written: the request
// must not offer it (no proposed_host), and an "always" answered all the
// same writes no rule. Once still works.
func TestManagedNetworkPromptOffersNoAlways(t *testing.T) {
	requireIsolation(t)
	s := startEgressServers(t)
	f := managedNetFixture(t, port(t, s.http), `network_rule(host="allowed.test", protocol="http", decision="prompt")`+"\n")
	before, err := os.ReadFile(f.userRules)
	if err != nil {
		t.Fatal(err)
	}
	asked := filepath.Join(f.dir, "asked.json")
	answer := func(outcome string) string {
		p := filepath.Join(f.dir, outcome+".sh")
		mustWrite(t, p, `#!/bin/sh
tee -a `+asked+` | sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p' | { read id; printf '{"id":"%s","outcome":"`+outcome+`"}\n' "$id"; }
`)
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return "exec:" + p
	}
	curl := []string{"--", "curl", "-sS", "-m", "10", "http://allowed.test/ok"}
	out, _ := f.gatedexec(t, append([]string{"run", "-p", "net", "--approver", answer("approved_always")}, curl...)...)
	req, err := os.ReadFile(asked)
	if err != nil {
		t.Fatalf("the approver was not asked: %v\n%s", err, out)
	}
	if strings.Contains(string(req), "proposed_host") {
		t.Errorf("the request offers \"always\" (proposed_host), whose rule the managed allowed_profiles drops:\n%s", req)
	}
	if after, _ := os.ReadFile(f.userRules); string(after) != string(before) {
		t.Errorf("an \"always\" answer wrote a rule the managed layer ignores:\n%s", after)
	}
	if out, _ := f.gatedexec(t, append([]string{"run", "-p", "net", "--approver", answer("approved")}, curl...)...); !strings.Contains(out, "ok host=allowed.test") {
		t.Errorf("approved once, the host is not reached:\n%s", out)
	}
}
