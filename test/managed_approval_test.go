package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// answerScript writes an exec approver that answers every request with
// outcome, and returns its --approver value.
func answerScript(t *testing.T, dir, outcome string) string {
	t.Helper()
	p := filepath.Join(dir, outcome+".sh")
	mustWrite(t, p, `#!/bin/sh
id=$(sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
printf '{"id":"%s","outcome":"`+outcome+`"}\n' "$id"
`)
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return "exec:" + p
}

// An approval that outlives its run is bound to the managed layer it was
// given under: after the security team changes the ceiling (a prompt rule
// of its own, or only its config.toml), neither a session approval nor a
// deferred request's id settles the prompt; the person is asked again.
// A rule of the user's about another command changes nothing.
func TestManagedChangeRevokesLastingApprovals(t *testing.T) {
	f, etc := managedCacheFixture(t, "")
	cfg := "managed = true\naudit_log = \"" + filepath.Join(f.dir, "managed.jsonl") + "\"\n"
	mustWrite(t, filepath.Join(etc, "config.toml"), cfg)
	if err := os.MkdirAll(filepath.Dir(f.userRules), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, f.userRules, `prefix_rule(pattern=["printf"], decision="prompt")`+"\n")
	session := answerScript(t, f.dir, "approved_for_session")
	run := func(approver string, extra ...string) (string, int) {
		args := append([]string{"run", "--session", "s1", "--approver", approver}, extra...)
		return f.gatedexec(t, append(args, "--", "printf", "ok")...)
	}
	if out, code := run(session); code != 0 {
		t.Fatalf("session approval: exit %d:\n%s", code, out)
	}
	mustWrite(t, f.userRules, `prefix_rule(pattern=["printf"], decision="prompt")`+"\n"+`prefix_rule(pattern=["true"], decision="allow")`+"\n")
	if out, code := run("deny"); code != 0 {
		t.Fatalf("a user rule about another command revoked the session approval: exit %d:\n%s", code, out)
	}

	mustWrite(t, filepath.Join(etc, "rules", "managed.rules"), `prefix_rule(pattern=["printf"], decision="prompt", justification="ask every time")`+"\n")
	if out, code := run("deny"); code != 77 {
		t.Errorf("a session approval given before the managed layer's prompt rule settled it: exit %d, want 77:\n%s", code, out)
	}

	// A deferred request, approved by its id after the managed
	// config.toml changed (the rules did not).
	res := filepath.Join(f.dir, "request.json")
	if out, code := run("defer", "--result-file", res); code != 75 {
		t.Fatalf("defer: exit %d:\n%s", code, out)
	}
	var req struct {
		ID string `json:"id"`
	}
	b, err := os.ReadFile(res)
	if err != nil || json.Unmarshal(b, &req) != nil || req.ID == "" {
		t.Fatalf("request file %s: %v: %s", res, err, b)
	}
	mustWrite(t, filepath.Join(etc, "config.toml"), cfg+"allowed_profiles = [\"workspace-write\", \"read-only\"]\n")
	out, code := run("deny", "--approve", req.ID+":session")
	if code != 77 || !strings.Contains(out, "mismatched approval id") {
		t.Errorf("--approve of a request made under another managed layer: exit %d, want 77 (mismatched id):\n%s", code, out)
	}
	if out, code := run("deny"); code != 77 {
		t.Errorf("a session approval given before allowed_profiles changed settled the prompt: exit %d, want 77:\n%s", code, out)
	}
}
