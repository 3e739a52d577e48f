package gate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/auditlog"
)

// The changes of the fixture, written by hand: git push prompt -> allow
// (looser), git status allow -> allow (its after-run record skipped),
// curl allow -> forbidden (stricter), the --shell script prompt -> allow
// (looser, judged as a script), the escalation record skipped, make
// prompt -> prompt.
func TestReplayFixture(t *testing.T) {
	want := map[int]string{1: "looser", 2: "same", 4: "stricter", 5: "looser", 8: "same"}
	got := map[int]string{}
	var bad []int
	sum, err := Replay([]string{"testdata/replay/new.rules"}, []string{"testdata/replay/old.jsonl"}, nil,
		func(r Replayed) { got[r.Line] = r.Change }, func(p auditlog.Problem) { bad = append(bad, p.Line) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("replayed lines %v, want %v", got, want)
	}
	for line, c := range want {
		if got[line] != c {
			t.Errorf("line %d: %q, want %q", line, got[line], c)
		}
	}
	if (sum != ReplaySummary{Decisions: 5, Same: 2, Stricter: 1, Looser: 2}) {
		t.Errorf("summary %+v", sum)
	}
	if len(bad) != 1 || bad[0] != 7 {
		t.Errorf("problems at %v, want line 7", bad)
	}
}

func TestReplayBadRulesIsConfig(t *testing.T) {
	_, err := Replay([]string{"testdata/replay/old.jsonl"}, []string{"testdata/replay/old.jsonl"}, nil, func(Replayed) {}, func(auditlog.Problem) {})
	if err == nil || !isConfig(err) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
}

func isConfig(err error) bool { return errors.Is(err, ErrConfig) }

// A record judged on an agent's terminal is judged so again. Under rules
// allowing env and git, env -u PAGER git log is a prompt there (it unsets
// what sets the pager) and an allow elsewhere: replayed without its
// agent_terminal, its prompt would be reported looser under the very
// rules that made it, and a policy repository's CI would stop on it.
func TestReplayAgentTerminal(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "new.rules")
	if err := os.WriteFile(rules, []byte(`prefix_rule(pattern=["env"], decision="allow")
prefix_rule(pattern=["git"], decision="allow")
prefix_rule(pattern=["more"], decision="allow")
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, record string
		now, change  string
	}{
		{"agent terminal", `"argv":["env","-u","PAGER","git","log"],"agent_terminal":true,"decision":"prompt"`, "prompt", "same"},
		{"same record without the field", `"argv":["env","-u","PAGER","git","log"],"decision":"prompt"`, "allow", "looser"},
		{"elsewhere", `"argv":["env","-u","PAGER","git","log"],"decision":"allow"`, "allow", "same"},
		{"agent terminal, a pager in a script", `"argv":["git log | more"],"shell":true,"agent_terminal":true,"decision":"prompt"`, "prompt", "same"},
		{"a pager in a script elsewhere", `"argv":["git log | more"],"shell":true,"decision":"prompt"`, "allow", "looser"},
		{"agent terminal, a plain command", `"argv":["git","log"],"agent_terminal":true,"decision":"prompt"`, "allow", "looser"},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "audit.jsonl")
			line := `{"time":"2026-01-01T10:00:00Z","kind":"exec",` + c.record + `,"cwd":"/w","rules_matched":[],"exit":null}` + "\n"
			if err := os.WriteFile(log, []byte(line), 0o600); err != nil {
				t.Fatal(err)
			}
			var got []Replayed
			_, err := Replay([]string{rules}, []string{log}, nil, func(r Replayed) { got = append(got, r) },
				func(p auditlog.Problem) { t.Errorf("problem: %v", p) })
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Now != c.now || got[0].Change != c.change {
				t.Fatalf("replayed %+v, want now %s, %s", got, c.now, c.change)
			}
			if want := strings.Contains(c.record, `"agent_terminal":true`); got[0].AgentTerminal != want {
				t.Errorf("replayed agent_terminal %v, want %v", got[0].AgentTerminal, want)
			}
		})
	}
}

// What a run on an agent's terminal audits, replayed under the rules that
// judged it, is the same decision for every record: the writer, the
// reader and replay agree on agent_terminal.
func TestReplayAgentTerminalRoundTrip(t *testing.T) {
	h := newTestHost(t)
	rules := filepath.Join(h.user, "rules", "user.rules")
	h.write(t, rules, `
prefix_rule(pattern=["env"], decision="allow")
prefix_rule(pattern=["git"], decision="allow")
`)
	audit := filepath.Join(h.env["HOME"], "audit.jsonl")
	g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &fakeRunner{}, AgentTerminal: true,
		Flags: Flags{Approver: "deny", AuditLog: audit}})
	if err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{{"git", "log"}, {"env", "-u", "PAGER", "git", "log"}, {"env", "-i", "git", "log"}} {
		if _, err := g.Run(context.Background(), Request{Argv: argv}); err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
	}
	g.Close()
	sum, err := Replay([]string{rules}, []string{audit}, nil, func(r Replayed) {
		if r.Change != "same" || !r.AgentTerminal {
			t.Errorf("%s:%d %q: %s -> %s (%s), agent terminal %v", r.File, r.Line, r.Argv, r.Recorded, r.Now, r.Change, r.AgentTerminal)
		}
	}, func(p auditlog.Problem) { t.Errorf("problem: %v", p) })
	if err != nil {
		t.Fatal(err)
	}
	if (sum != ReplaySummary{Decisions: 3, Same: 3}) {
		t.Errorf("summary %+v, want 3 decisions, all the same", sum)
	}
}
