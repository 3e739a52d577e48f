package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gatedexec/gatedexec/gate"
)

// writeJSONLine writes v as one line of JSON, or indented with pretty:
// a caller reading stderr line by line gets the whole result in one.
func writeJSONLine(w io.Writer, v any, pretty bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// explainRun says on stderr what the result alone does not make plain:
// what the sandbox denied and how it could be allowed, and which rules
// file an "always" answer wrote to.
func explainRun(w io.Writer, res *gate.Result) {
	if res.Approval.RuleFile != "" {
		fmt.Fprintf(w, "gatedexec: always: appended %s to %s\n", res.Approval.Rule, res.Approval.RuleFile)
	}
	for _, d := range res.Denials {
		fmt.Fprintf(w, "gatedexec: sandbox denied %s (profile %s); %s\n", d, res.Profile, gate.AllowHint(d, res.Escalated))
	}
}

// deniedError explains why a command did not run (exit 77). A refusal by
// the deny approver says why the command needed approval and what would
// let it run, since nobody was asked.
func deniedError(res *gate.Result, hint denyHint) error {
	why := res.Approval.Reason
	if why == "" && len(res.Reasons) > 0 {
		why = res.Reasons[0].Detail
	}
	if why != gate.DenyApproverReason {
		return fmt.Errorf("denied (%s, %s by %s): %s", res.Decision, res.Approval.Outcome, res.Approval.By, why)
	}
	var reasons []string
	for i, r := range res.Reasons {
		if i == 3 {
			reasons = append(reasons, fmt.Sprintf("and %d more", len(res.Reasons)-3))
			break
		}
		reasons = append(reasons, string(r.Kind)+": "+r.Detail)
	}
	approver := "the approver is deny (" + hint.approverFrom + ")"
	if hint.pinned {
		return fmt.Errorf("denied: the command needs approval (%s) and the managed layer pins the approver to deny (%s): "+
			"no --approver, GATEDEXEC_APPROVER or config.toml below it changes that", strings.Join(reasons, "; "), hint.approverFrom)
	}
	if strings.HasPrefix(hint.approverFrom, "default") {
		approver = "no terminal to ask on (stdin and stderr are not both terminals), so the approver is deny"
	}
	return fmt.Errorf("denied: the command needs approval (%s) and %s. To run it: answer a prompt from a terminal (--approver tty), "+
		"let a program answer (--approver exec:CMD), hand the request to the caller (--approver defer, then --approve ID), "+
		"or allow it with prefix_rule(pattern=[...], decision=\"allow\") in a rules file (-r FILE)",
		strings.Join(reasons, "; "), approver)
}
