package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// managedSuggestFixture is a managed layer allowing workspace-write alone
// and no user allow rules, with its audit log.
func managedSuggestFixture(t *testing.T) (gateFixture, string, string) {
	t.Helper()
	f, etc := managedCacheFixture(t, "")
	log := filepath.Join(f.dir, "managed.jsonl")
	mustWrite(t, filepath.Join(etc, "config.toml"), "managed = true\nallowed_profiles = [\"workspace-write\"]\nallow_user_rules = false\naudit_log = \""+log+"\"\n")
	return f, etc, log
}

// suggest runs argv under f (each prompt denied, an unmatched one run in
// workspace-write) and returns `audit --suggest` of the managed log.
func (f gateFixture) suggest(t *testing.T, log string, argvs ...[]string) string {
	t.Helper()
	for _, argv := range argvs {
		args := append([]string{"run", "--approver", "deny", "-C", f.ws, "-w", f.ws, "--"}, argv...)
		f.gatedexec(t, args...)
	}
	out, code := f.gatedexec(t, "audit", "--suggest", log)
	if code != 0 {
		t.Fatalf("audit --suggest exited %d:\n%s", code, out)
	}
	return out
}

// Under a managed layer that allows workspace-write alone and no user
// allow rules, --suggest must not propose a profile the ceiling refuses,
// or rules a user layer would hold in vain, without saying so: each
// suggestion says where it takes effect, naming the managed key's line.
func TestManagedSuggestSaysWhereItTakesEffect(t *testing.T) {
	requireIsolation(t)
	f, etc, log := managedSuggestFixture(t)
	out := f.suggest(t, log, []string{"touch", "/opt/denied-y"})
	for _, want := range []string{
		`prefix_rule(pattern=["touch"], decision="allow")`,
		"to take effect, in " + etc + "/rules/ (the managed layer; a user's allow rule would not count: the managed allow_user_rules (" + etc + "/config.toml:3",
		"# " + etc + "/profiles/workspace-write-audit.toml: ",
		"# refused by the managed layer: profile workspace-write-audit is not among the managed allowed_profiles (" + etc + "/config.toml:2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("suggestions lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "# profiles/workspace-write-audit.toml") || strings.Contains(out, "for a .rules file") {
		t.Errorf("a suggestion does not say where it takes effect:\n%s", out)
	}
}

// A script prompted for its redirect is not lowered by an allow rule for
// its command: --suggest must not offer prefix_rule(["echo"]) for it, but
// list it, from the reasons the record now holds, as needing another
// change; an unmatched command beside it still gets its rule.
func TestSuggestNoAllowRuleForAPromptNotForWantOfARule(t *testing.T) {
	requireIsolation(t)
	f, _, log := managedSuggestFixture(t)
	out := f.suggest(t, log, []string{"sh", "-c", "echo x > /opt/denied-x"}, []string{"touch", "/opt/denied-y"})
	if strings.Contains(out, `pattern=["echo"]`) || strings.Contains(out, `pattern=["sh"`) {
		t.Errorf("an allow rule is suggested for a prompt it would not lower:\n%s", out)
	}
	for _, want := range []string{
		"# unanalysable: write redirect to /opt/denied-x: 1 record",
		`prefix_rule(pattern=["touch"], decision="allow")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("suggestions lack %q:\n%s", want, out)
		}
	}
	if recs, err := os.ReadFile(log); err != nil || !strings.Contains(string(recs), `"reasons":[{"kind":"unanalysable","detail":"write redirect to /opt/denied-x"}`) {
		t.Errorf("the audit record does not hold the prompt's reasons (%v):\n%s", err, recs)
	}
}
