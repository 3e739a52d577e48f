package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/profiles"
	"github.com/gatedexec/gatedexec/sandbox"
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
		fmt.Fprintf(w, "gatedexec: sandbox denied %s (profile %s); %s\n", d, res.Profile, allowHint(d, res.Escalated))
	}
}

// allowHint says how the access a denial stopped could be allowed.
func allowHint(d sandbox.Denial, escalated bool) string {
	escalate := "run with --approval-policy on-failure to be asked to grant it for this command, or "
	if escalated {
		escalate = ""
	}
	switch d.Kind {
	case sandbox.KindFSHidden:
		return "the profile hides it (hide); no escalation is offered for a hidden path: use a profile that does not hide it"
	case sandbox.KindFSWrite:
		cache := &profiles.Vars{Home: os.Getenv("HOME"), Getenv: os.Getenv}
		if tok := profiles.CacheTokenFor(d.Path, cache); tok != "" {
			return "to allow it, add " + tok + " to the profile's filesystem.write or use -p workspace-dev"
		}
		return "to allow it, " + escalate + "use a profile whose write list covers it (-p PROFILE, e.g. full-access)"
	case sandbox.KindFSRead:
		return "to allow it, " + escalate + "use a profile whose read list covers it (-p PROFILE)"
	case sandbox.KindNetConnect, sandbox.KindNetBind:
		return "to allow it, " + escalate + "use a profile with [network] mode = \"on\" (-p PROFILE), or name one for this command with prefix_rule(..., profile=\"NAME\")"
	case sandbox.KindSyscall:
		return "the sandbox always denies this system call; only -p full-access runs without the filter"
	}
	return "no profile setting grants it"
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
	if strings.HasPrefix(hint.approverFrom, "default") {
		approver = "no terminal to ask on (stdin and stderr are not both terminals), so the approver is deny"
	}
	return fmt.Errorf("denied: the command needs approval (%s) and %s. To run it: answer a prompt from a terminal (--approver tty), "+
		"let a program answer (--approver exec:CMD), hand the request to the caller (--approver defer, then --approve ID), "+
		"or allow it with prefix_rule(pattern=[...], decision=\"allow\") in a rules file (-r FILE)",
		strings.Join(reasons, "; "), approver)
}
