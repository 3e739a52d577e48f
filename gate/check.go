package gate

import (
	"context"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
)

// CheckResult is what Run would decide for a request, in the JSON of
// `gatedexec check` (DESIGN §3, §4).
type CheckResult struct {
	Decision     execpolicy.Decision   `json:"decision"`
	MatchedRules execpolicy.CodexRules `json:"matchedRules"`
	Commands     []CheckedCommand      `json:"commands"`
	Reasons      []execpolicy.Reason   `json:"reasons"`
	// Action is what the approval policy makes of the decision: run, ask
	// or deny, as Run would take it.
	Action approval.Action `json:"action"`
	// Variables are the names of the variables the command sets, exports
	// or unsets (execpolicy.Evaluation.Variables), for a front end that
	// refuses some; not part of check's output.
	Variables []string `json:"-"`
}

// CheckedCommand is one command found in what was checked.
type CheckedCommand struct {
	Argv         approval.Argv         `json:"argv"`
	MatchedRules execpolicy.CodexRules `json:"matchedRules"`
	Decision     execpolicy.Decision   `json:"decision"`
}

// Check judges the request's command as Run would, by the same policy and
// approval policy, and runs nothing.
func (g *Gate) Check(_ context.Context, req Request) (*CheckResult, error) {
	st, err := g.current()
	if err != nil {
		return nil, err
	}
	if _, err := g.place(req); err != nil {
		return nil, err
	}
	return checkResultOf(st.policy.Evaluate(req.Argv, g.evalOptions(req)), st.approval), nil
}

// checkResultOf is the CheckResult of ev under the approval policy pol.
func checkResultOf(ev execpolicy.Evaluation, pol approval.Policy) *CheckResult {
	out := &CheckResult{
		Decision:     ev.Decision,
		MatchedRules: execpolicy.CodexRules(ev.Matched),
		Commands:     []CheckedCommand{},
		Reasons:      ev.Reasons,
		Action:       pol.Action(ev),
		Variables:    ev.Variables,
	}
	if out.Reasons == nil {
		out.Reasons = []execpolicy.Reason{}
	}
	for _, c := range ev.Commands {
		argv := c.Argv
		if argv == nil {
			argv = []string{}
		}
		out.Commands = append(out.Commands, CheckedCommand{Argv: argv, MatchedRules: execpolicy.CodexRules(c.Matches), Decision: c.Decision})
	}
	return out
}

// CheckCodex prints what `codex execpolicy check` prints for argv: Codex
// matches the argv as literal tokens, without shell analysis, so this
// does too.
func (g *Gate) CheckCodex(argv []string, resolveHost, pretty bool) ([]byte, error) {
	st, err := g.current()
	if err != nil {
		return nil, err
	}
	return execpolicy.CodexJSON(st.policy.MatchArgv(argv, execpolicy.MatchOptions{ResolveHostExecutables: resolveHost}), pretty), nil
}
