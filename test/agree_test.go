//go:build unix

package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckAgreesWithRunCLI runs the same commands through `gatedexec
// check` and `gatedexec run` and asserts the same decision and action:
// check's "action", run's audited "action". The workspace comes from -C
// and -w (its trusted layer forbids a command), and the approval policy
// from config.toml, which check once ignored (issue 12).
func TestCheckAgreesWithRunCLI(t *testing.T) {
	f := newGateFixture(t, `prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["true"], decision="allow")
`)
	sub := filepath.Join(f.ws, "sub")
	layer := filepath.Join(f.ws, ".gatedexec", "rules")
	for _, d := range []string{sub, layer} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(layer, "ws.rules"), []byte(`prefix_rule(pattern=["frobnicate"], decision="forbidden")`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gx := func(args ...string) ([]byte, error) {
		cmd := exec.Command(gatedexecBin, args...)
		cmd.Env, cmd.Dir = f.env, f.dir
		return cmd.Output()
	}
	if out, err := gx("trust", f.ws); err != nil {
		t.Fatalf("trust: %v\n%s", err, out)
	}
	config := filepath.Join(f.dir, "config", "gatedexec", "config.toml")
	commands := [][]string{
		{"true"},
		{"git", "push", "--dry-run"},
		{"frobnicate"},
		{"mytool", "--version"},
		{"sh", "-c", "echo $(id) > /dev/null"},
		{"rm", "-rf", "/"},
	}
	for _, policy := range []string{"", "untrusted", "on-failure", "never"} {
		if policy == "" {
			os.Remove(config)
		} else {
			if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(config, []byte(fmt.Sprintf("approval_policy = %q\n", policy)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, argv := range commands {
			if policy == "never" && argv[0] == "sh" {
				// never runs an unanalysable command: it would run.
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", policy, argv[0]), func(t *testing.T) {
				out, err := gx(append([]string{"check", "-r", f.rules, "-C", sub, "-w", f.ws, "--"}, argv...)...)
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				var chk struct{ Decision, Action string }
				if err := json.Unmarshal(out, &chk); err != nil {
					t.Fatalf("check output %s: %v", out, err)
				}
				os.Remove(f.audit)
				args := []string{"run", "--approver", "deny", "-r", f.rules, "-C", sub, "-w", f.ws, "--audit-log", f.audit, "--"}
				gx(append(args, argv...)...) // its exit status is the command's or 77
				rec := firstAudit(t, f.audit)
				if rec.Decision != chk.Decision || rec.Action != chk.Action {
					t.Errorf("run: %s/%s, check: %s/%s", rec.Decision, rec.Action, chk.Decision, chk.Action)
				}
			})
		}
	}
}

// firstAudit returns the decision and action of the first audit record.
func firstAudit(t *testing.T, path string) (rec struct{ Decision, Action string }) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	if !sc.Scan() {
		t.Fatal("audit log is empty")
	}
	if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || !strings.HasPrefix(sc.Text(), "{") {
		t.Fatalf("audit record %s: %v", sc.Text(), err)
	}
	return rec
}
