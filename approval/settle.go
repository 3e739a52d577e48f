package approval

import (
	"context"
	"fmt"
	"strings"

	"github.com/gatedexec/gatedexec/execpolicy"
)

// Settlement says who settled a request and how, in the "approval" object
// of a run's result (DESIGN §2).
type Settlement struct {
	// By says who settled it, in the values of DESIGN §2: "rule" (a rule
	// allowed or forbade the command), "policy" (the approval policy ran
	// or denied it without asking, or the deny approver refused), "tty",
	// "exec", "session" (an earlier session approval), and "defer" (the
	// host answered a deferred request with --approve or --deny, or it is
	// still deferred).
	By      string  `json:"by"`
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	// RuleFile is the rules file an "always" answer appended Rule to.
	RuleFile string `json:"rule_file,omitempty"`
	Rule     string `json:"rule,omitempty"`
}

// Settler turns the approval policy's action for a request into a
// Settlement, asking the approver when it must, and makes a session or
// "always" answer last.
type Settler struct {
	Approver Approver
	// ApproverID names the approver in results: "tty", "exec", "deny",
	// "defer".
	ApproverID string
	// Session, when non-nil, holds the session approvals.
	Session *Session
	// AmendFile is the rules file an "always" answer appends to.
	AmendFile string
}

// Settle settles req, whose command the rules gave decision and the
// approval policy action. approve and deny are the --approve/--deny
// values that may resume it. The error says an answer could not be made
// to last (a session or rules file not written); the Settlement then
// still says what the answer was.
func (s *Settler) Settle(ctx context.Context, action Action, decision execpolicy.Decision, req *Request, approve, deny []string) (Settlement, error) {
	switch action {
	case Run:
		if decision == execpolicy.Allow {
			return Settlement{By: "rule", Outcome: Approved}, nil
		}
		// Unmatched (or unanalysable under never): the policy runs it.
		return Settlement{By: "policy", Outcome: Approved}, nil
	case Deny:
		return Settlement{By: "policy", Outcome: Denied, Reason: "denied by policy"}, nil
	}
	if resp, ok := Resume(req, approve, deny); ok {
		return s.record(req, Settlement{By: "defer", Outcome: resp.Outcome, Reason: resp.Reason})
	}
	if s.Session != nil && !req.Dangerous {
		// A damaged session file approves nothing: the approver is asked.
		if ok, err := s.Session.Has(req); err == nil && ok {
			return Settlement{By: "session", Outcome: ApprovedForSession}, nil
		}
	}
	resp, err := s.Approver.Approve(ctx, req)
	by := s.ApproverID
	if by == "deny" {
		// Nobody was asked: the configuration refuses every prompt.
		by = "policy"
	}
	out := Settlement{By: by, Outcome: resp.Outcome, Reason: resp.Reason}
	if err != nil {
		out.Outcome, out.Reason = Denied, err.Error()
	}
	if resp.ID != req.ID && out.Outcome != Deferred {
		out.Outcome, out.Reason = Denied, "approver answered another request"
	}
	return s.record(req, out)
}

// record makes a session or "always" approval last.
func (s *Settler) record(req *Request, out Settlement) (Settlement, error) {
	switch out.Outcome {
	case ApprovedForSession:
		if s.Session == nil || req.Dangerous {
			// Without a session (or for a dangerous command) it counts
			// once, and the result says so rather than claim more.
			why := "no session id is set"
			if req.Dangerous {
				why = "a dangerous command is never approved for a session"
			}
			out.Outcome, out.Reason = Approved, strings.TrimPrefix(out.Reason+"; ", "; ")+"approved once: "+why
			return out, nil
		}
		if err := s.Session.Add(req); err != nil {
			return out, fmt.Errorf("recording session approval: %w", err)
		}
	case ApprovedAlways:
		if req.ProposedRule == nil && req.ProposedHost != "" && s.AmendFile != "" {
			if _, err := execpolicy.AppendNetworkRule(s.AmendFile, req.ProposedHost); err != nil {
				return out, fmt.Errorf("writing the approved rule: %w", err)
			}
			out.RuleFile, out.Rule = s.AmendFile, execpolicy.FormatApprovedNetworkRule(req.ProposedHost)
			return out, nil
		}
		if req.ProposedRule == nil {
			out.Outcome, out.Reason = Denied, "no rule can be proposed for this command"
			return out, nil
		}
		if _, err := execpolicy.AppendAllowRule(s.AmendFile, req.ProposedRule); err != nil {
			return out, fmt.Errorf("writing the approved rule: %w", err)
		}
		out.RuleFile, out.Rule = s.AmendFile, execpolicy.FormatAllowRule(req.ProposedRule)
	}
	return out, nil
}

// Escalates reports whether the approval policy asks to escalate after a
// sandbox denial (DESIGN §4): on-failure and untrusted do; on-request and
// never only report it.
func (p Policy) Escalates() bool {
	return p == OnFailure || p == Untrusted
}

// Naming returns the --approve/--deny values whose request id is id.
func Naming(vals []string, id string) []string {
	var out []string
	for _, v := range vals {
		if vid, _, _ := strings.Cut(v, ":"); vid == id {
			out = append(out, v)
		}
	}
	return out
}
