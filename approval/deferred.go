package approval

import (
	"context"
	"fmt"
	"strings"
)

// DeferApprover answers every request with Deferred: the caller writes the
// request to --result-file, exits 75, and the host re-runs the command
// with --approve or --deny (see Resume).
type DeferApprover struct{}

// Approve defers r.
func (DeferApprover) Approve(_ context.Context, r *Request) (Response, error) {
	return Response{ID: r.ID, Outcome: Deferred, Reason: "approval deferred to the host"}, nil
}

// CheckResumeValue checks the syntax of an --approve value (withScope:
// ID or ID:once|session|always) or a --deny value (ID), so that a typo
// is a usage error at once rather than a denial after the rules loaded.
func CheckResumeValue(v string, withScope bool) error {
	id, scope, hasScope := strings.Cut(v, ":")
	if len(id) != RequestIDLen || strings.Trim(id, "0123456789abcdef") != "" {
		return fmt.Errorf("%q: want a request id of %d lowercase hex digits", v, RequestIDLen)
	}
	if !hasScope {
		return nil
	}
	if !withScope {
		return fmt.Errorf("%q: --deny takes a request id only", v)
	}
	switch scope {
	case "once", "session", "always":
		return nil
	}
	return fmt.Errorf("%q: invalid approval scope %q (want once, session or always)", v, scope)
}

// Resume answers r from the host's --approve and --deny values, given on
// re-running a deferred command. An --approve value is ID or
// ID:once|session|always; a --deny value is ID. Only a value whose id is
// exactly r.ID counts, so an approval cannot be replayed for another
// command. ok is false when no value was given at all (ask the approver
// as usual); a value for another id, or a malformed one, denies.
// When both an approval and a denial name r.ID, the denial wins.
func Resume(r *Request, approve, deny []string) (resp Response, ok bool) {
	if len(approve) == 0 && len(deny) == 0 {
		return Response{}, false
	}
	for _, d := range deny {
		if d == r.ID {
			return Response{ID: r.ID, Outcome: Denied, Reason: "denied by --deny"}, true
		}
	}
	var found *Response
	for _, a := range approve {
		id, scope, hasScope := strings.Cut(a, ":")
		if id != r.ID {
			continue
		}
		o := Approved
		if hasScope {
			switch scope {
			case "once":
			case "session":
				o = ApprovedForSession
			case "always":
				o = ApprovedAlways
			default:
				return Response{ID: r.ID, Outcome: Denied,
					Reason: fmt.Sprintf("invalid approval scope %q in --approve %s (want once, session or always)", scope, a)}, true
			}
		}
		if found != nil && found.Outcome != o {
			return Response{ID: r.ID, Outcome: Denied, Reason: "conflicting --approve scopes for " + r.ID}, true
		}
		found = &Response{ID: r.ID, Outcome: o, Reason: "approved by --approve"}
	}
	if found != nil {
		if found.Outcome == ApprovedAlways && r.ProposedRule == nil {
			return Response{ID: r.ID, Outcome: Denied, Reason: "--approve " + r.ID + ":always, but no rule can be proposed for this command"}, true
		}
		return *found, true
	}
	return Response{ID: r.ID, Outcome: Denied, Reason: "mismatched approval id (this request is " + r.ID + ")"}, true
}
