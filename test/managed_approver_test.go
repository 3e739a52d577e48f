package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A managed layer that pins the approver (approver = "deny" in its
// config.toml) is not overridden by the user's config.toml or a flag
// pointing at a program that always says yes: the managed prompt is
// denied, and the refusal names both settings' file:line.
func TestManagedApproverPinned(t *testing.T) {
	f, etc := managedCacheFixture(t, `prefix_rule(pattern=["printf"], decision="prompt", justification="a person decides")`+"\n")
	managed := filepath.Join(etc, "config.toml")
	mustWrite(t, managed, "managed = true\naudit_log = \""+filepath.Join(f.dir, "managed.jsonl")+"\"\napprover = \"deny\"\n")
	yes := answerScript(t, f.dir, "approved")
	user := filepath.Join(f.dir, "config", "gatedexec", "config.toml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, user, "approver = \""+yes+"\"\n")
	for _, c := range []struct {
		name  string
		args  []string
		where string
	}{
		{"user config.toml", nil, user + ":1:1"},
		{"--approver", []string{"--approver", yes}, "--approver"},
	} {
		args := append(append([]string{"run"}, c.args...), "--", "printf", "ran")
		out, code := f.gatedexec(t, args...)
		if code != 77 || strings.Contains(out, "ran") {
			t.Errorf("%s: a yes-approver answered a managed prompt under a pinned deny: exit %d:\n%s", c.name, code, out)
		}
		if !strings.Contains(out, "refused: approver "+yes+" from "+c.where) || !strings.Contains(out, managed+":3:1") {
			t.Errorf("%s: the refusal does not name %s and %s:3:1:\n%s", c.name, c.where, managed, out)
		}
	}
}
