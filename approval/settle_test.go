package approval

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/execpolicy"
)

// answerer answers with outcome, under the id given (the request's when "").
type answerer struct {
	outcome Outcome
	id      string
	asked   int
}

func (a *answerer) Approve(_ context.Context, r *Request) (Response, error) {
	a.asked++
	id := a.id
	if id == "" {
		id = r.ID
	}
	return Response{ID: id, Outcome: a.outcome}, nil
}

func TestSettle(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		name      string
		action    Action
		decision  execpolicy.Decision
		answer    Outcome
		answerID  string
		approve   []string
		session   bool
		dangerous bool
		want      Settlement
		asked     int
	}{
		{"allowed by rule", Run, execpolicy.Allow, Denied, "", nil, false, false, Settlement{By: "rule", Outcome: Approved}, 0},
		{"run by policy", Run, execpolicy.Prompt, Denied, "", nil, false, false, Settlement{By: "policy", Outcome: Approved}, 0},
		{"denied by policy", Deny, execpolicy.Forbidden, Approved, "", nil, false, false, Settlement{By: "policy", Outcome: Denied, Reason: "denied by policy"}, 0},
		{"asked", Ask, execpolicy.Prompt, Approved, "", nil, false, false, Settlement{By: "exec", Outcome: Approved}, 1},
		{"answer for another request", Ask, execpolicy.Prompt, Approved, "ffffffffffffffffffffffffffffffff", nil, false, false,
			Settlement{By: "exec", Outcome: Denied, Reason: "approver answered another request"}, 1},
		{"resumed by --approve", Ask, execpolicy.Prompt, Denied, "", []string{id}, false, false, Settlement{By: "defer", Outcome: Approved, Reason: "approved by --approve"}, 0},
		{"session without a store counts once", Ask, execpolicy.Prompt, ApprovedForSession, "", nil, false, false,
			Settlement{By: "exec", Outcome: Approved, Reason: "approved once: no session id is set"}, 1},
		{"dangerous never for a session", Ask, execpolicy.Prompt, ApprovedForSession, "", nil, true, true,
			Settlement{By: "exec", Outcome: Approved, Reason: "approved once: a dangerous command is never approved for a session"}, 1},
		{"always without a proposed rule", Ask, execpolicy.Prompt, ApprovedAlways, "", nil, false, false,
			Settlement{By: "exec", Outcome: Denied, Reason: "no rule can be proposed for this command"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &answerer{outcome: tt.answer, id: tt.answerID}
			s := Settler{Approver: a, ApproverID: "exec", AmendFile: filepath.Join(t.TempDir(), "default.rules")}
			if tt.session {
				var err error
				if s.Session, err = OpenSession(t.TempDir(), "s"); err != nil {
					t.Fatal(err)
				}
			}
			req := &Request{ID: id, Argv: []string{"git", "push"}, Cwd: "/w", Kind: KindExec, Dangerous: tt.dangerous}
			got, err := s.Settle(context.Background(), tt.action, tt.decision, req, tt.approve, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || a.asked != tt.asked {
				t.Errorf("Settle = %+v (asked %d), want %+v (asked %d)", got, a.asked, tt.want, tt.asked)
			}
		})
	}
}

// A session approval is kept and answers the next request itself.
func TestSettleSessionLasts(t *testing.T) {
	sess, err := OpenSession(t.TempDir(), "s")
	if err != nil {
		t.Fatal(err)
	}
	a := &answerer{outcome: ApprovedForSession}
	s := Settler{Approver: a, ApproverID: "tty", Session: sess}
	req := &Request{ID: "0123456789abcdef0123456789abcdef", Argv: []string{"make"}, Cwd: "/w", Profile: "p", Kind: KindExec}
	for i, want := range []string{"tty", "session"} {
		got, err := s.Settle(context.Background(), Ask, execpolicy.Prompt, req, nil, nil)
		if err != nil || got.By != want || got.Outcome != ApprovedForSession {
			t.Fatalf("round %d: %+v, %v; want by %s", i, got, err, want)
		}
	}
	if a.asked != 1 {
		t.Errorf("asked %d times, want 1", a.asked)
	}
}

func TestEscalatesAndNaming(t *testing.T) {
	for p, want := range map[Policy]bool{Untrusted: true, OnFailure: true, OnRequest: false, Never: false} {
		if p.Escalates() != want {
			t.Errorf("%s.Escalates() = %v", p, !want)
		}
	}
	vals := []string{"aa:once", "bb", "aa:session", "aaa"}
	if got := Naming(vals, "aa"); !slices.Equal(got, []string{"aa:once", "aa:session"}) {
		t.Errorf("Naming = %q", got)
	}
}
