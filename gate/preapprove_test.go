package gate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
)

// A request Register registered is approved once, by "hook", for its own
// session, and only the exact request: another script, cwd or session,
// a second run, or rules changed meanwhile all ask the approver again.
func TestRegisterApprovesOneRun(t *testing.T) {
	h := newTestHost(t)
	rules := filepath.Join(h.user, "rules", "user.rules")
	h.write(t, rules, `prefix_rule(pattern=["git", "push"], decision="prompt")`)
	ctx := context.Background()
	push := Request{Argv: []string{"git push"}, Shell: true, Session: "s1"}

	cases := []struct {
		name   string
		run    Request
		edit   bool // change the rules between Register and Run
		wantBy string
	}{
		{"same request", push, false, "hook"},
		{"other session", Request{Argv: push.Argv, Shell: true, Session: "s2"}, false, "policy"},
		{"other script", Request{Argv: []string{"git  push"}, Shell: true, Session: "s1"}, false, "policy"},
		{"other cwd", Request{Argv: push.Argv, Shell: true, Session: "s1", Cwd: h.sub}, false, "policy"},
		{"rules changed", push, true, "policy"},
		{"unregistered", push, false, "policy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.write(t, rules, `prefix_rule(pattern=["git", "push"], decision="prompt")`)
			runner := &syncRunner{}
			g, err := New(Config{Workspace: h.workspace, Flags: Flags{Approver: "deny"}, Getenv: h.getenv, Runner: runner, Watch: true})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			reg, err := g.Register(ctx, push)
			if err != nil {
				t.Fatal(err)
			}
			if reg.Action != approval.Ask || len(reg.RequestID) != approval.RequestIDLen {
				t.Fatalf("registration %+v: want an ask with a request id", reg)
			}
			if c.edit {
				h.write(t, rules, `prefix_rule(pattern=["git", "push"], decision="prompt", justification="edited")`)
			}
			if c.name == "unregistered" {
				if un, err := g.Unregister(ctx, push); err != nil || un.RequestID != reg.RequestID {
					t.Fatalf("unregister: %+v, %v", un, err)
				}
			}
			res, err := g.Run(ctx, c.run)
			if err != nil {
				t.Fatal(err)
			}
			if res.Approval.By != c.wantBy || res.Ran != (c.wantBy == "hook") {
				t.Errorf("run settled by %q (ran %v), want %q", res.Approval.By, res.Ran, c.wantBy)
			}
			if c.wantBy == "hook" && res.RequestID != reg.RequestID {
				t.Errorf("run's request id %s, registered %s", res.RequestID, reg.RequestID)
			}
			// One registration approves one run.
			again, err := g.Run(ctx, push)
			if err != nil {
				t.Fatal(err)
			}
			if c.wantBy == "hook" && again.Approval.By == "hook" {
				t.Error("a registration approved two runs")
			}
		})
	}
}

// Register registers nothing for what the policy runs or denies, and
// refuses a request without a valid session id.
func TestRegisterOnlyAsks(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `
prefix_rule(pattern=["make"], decision="allow")
prefix_rule(pattern=["frob"], decision="forbidden", justification="no frob")
`)
	g := h.gate(t, Flags{Approver: "deny"}, &syncRunner{})
	for _, script := range []string{"make all", "frob x"} {
		reg, err := g.Register(context.Background(), Request{Argv: []string{script}, Shell: true, Session: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if reg.RequestID != "" {
			t.Errorf("%q (action %s) registered %s", script, reg.Action, reg.RequestID)
		}
	}
	dir := filepath.Join(h.env["XDG_STATE_HOME"], "gatedexec", "preapproved")
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d registrations left for requests that do not ask", len(ents))
	}
	for _, session := range []string{"", "../x"} {
		if _, err := g.Register(context.Background(), Request{Argv: []string{"git push"}, Shell: true, Session: session}); err == nil {
			t.Errorf("session %q: registered", session)
		}
	}
}

// answerer approves every request and counts them.
type answerer struct{ n int }

func (a *answerer) Approve(_ context.Context, r *approval.Request) (approval.Response, error) {
	a.n++
	return approval.Response{ID: r.ID, Outcome: approval.Approved}, nil
}

// Request.Approver replaces the configured approver for that request only.
func TestRequestApprover(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `prefix_rule(pattern=["git", "push"], decision="prompt")`)
	g := h.gate(t, Flags{Approver: "deny"}, &syncRunner{})
	a := &answerer{}
	res, err := g.Run(context.Background(), Request{Argv: []string{"git", "push"}, Approver: a, ApproverID: "elicitation"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Ran || res.Approval.By != "elicitation" || a.n != 1 {
		t.Errorf("with the request's approver: ran %v, by %q, asked %d", res.Ran, res.Approval.By, a.n)
	}
	res, err = g.Run(context.Background(), Request{Argv: []string{"git", "push"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran || a.n != 1 {
		t.Errorf("without it: ran %v, asked %d", res.Ran, a.n)
	}
}

// Request.Refuse sees the rules' judgment and may deny a command they
// allow: it does not run, nobody is asked, and the audit log has it.
func TestRequestRefuse(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `prefix_rule(pattern=["make"], decision="allow")
prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")`)
	audit := filepath.Join(h.env["HOME"], "audit.jsonl")
	runner := &syncRunner{}
	g := h.gate(t, Flags{Approver: "deny", AuditLog: audit}, runner)
	a := &answerer{}
	var seen []string
	refuse := func(chk *CheckResult) string {
		for _, c := range chk.Commands {
			seen = append(seen, strings.Join(c.Argv, " "))
		}
		if chk.Decision == execpolicy.Allow && len(chk.Commands) == 2 {
			return "two commands"
		}
		return ""
	}
	res, err := g.Run(context.Background(), Request{Argv: []string{"make a && make b"}, Shell: true, Approver: a, Refuse: refuse})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran || res.Action != approval.Deny || res.Approval.By != "policy" || res.Approval.Reason != "two commands" || a.n != 0 {
		t.Errorf("refused: ran %v, action %s, approval %+v, asked %d", res.Ran, res.Action, res.Approval, a.n)
	}
	if !slices.Equal(seen, []string{"make a", "make b"}) {
		t.Errorf("Refuse saw %q, want the script's two commands", seen)
	}
	b, err := os.ReadFile(audit)
	if err != nil || !strings.Contains(string(b), `"reason":"two commands"`) {
		t.Errorf("audit log %q (%v): the refusal is not recorded", b, err)
	}
	if res, err := g.Run(context.Background(), Request{Argv: []string{"make a"}, Shell: true, Refuse: refuse}); err != nil || !res.Ran {
		t.Errorf("not refused: %+v, %v", res, err)
	}
	// What the rules deny stays the rule's: Refuse is not asked.
	seen = nil
	res, err = g.Run(context.Background(), Request{Argv: []string{"make a && rm b"}, Shell: true, Refuse: refuse})
	if err != nil || res.Ran || res.Approval.By != "rule" || len(seen) != 0 {
		t.Errorf("forbidden: %+v, %v; Refuse saw %q", res, err, seen)
	}
}
