// Package approval turns exec-policy decisions into actions: the approval
// policies, the approvers that ask, the session store and the audit log.
package approval

import (
	"fmt"

	"github.com/gatedexec/gatedexec/execpolicy"
)

// Policy is an approval policy, named as in Codex's --ask-for-approval.
type Policy string

// The approval policies of DESIGN §4.
const (
	// Untrusted asks for everything but allowed and known-safe commands.
	Untrusted Policy = "untrusted"
	// OnRequest, the default, runs unmatched plain commands in the sandbox
	// and asks for prompt rules, dangerous and unanalysable commands.
	OnRequest Policy = "on-request"
	// OnFailure is OnRequest, plus asking to escalate after a sandbox denial.
	OnFailure Policy = "on-failure"
	// Never never asks: what would be asked runs in the sandbox, except
	// prompt rules and dangerous commands, which are denied.
	Never Policy = "never"
)

// DefaultPolicy is the policy used when none is given.
const DefaultPolicy = OnRequest

// ParsePolicy parses an approval policy name; "" means DefaultPolicy.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case "":
		return DefaultPolicy, nil
	case Untrusted, OnRequest, OnFailure, Never:
		return p, nil
	}
	return "", fmt.Errorf("invalid approval policy %q (want untrusted, on-request, on-failure or never)", s)
}

// Action is what happens to a command: run it (in its sandbox), ask an
// approver, or deny it.
type Action string

// The actions.
const (
	Run  Action = "run"
	Ask  Action = "ask"
	Deny Action = "deny"
)

// class is a row of the DESIGN §4 table.
type class int

const (
	classAllow class = iota
	classUnmatchedSafe
	classUnmatched
	classUnanalysable
	classRuleOrDangerous
	classForbidden
)

// policies are the columns of the actions table.
var policies = [...]Policy{Untrusted, OnRequest, OnFailure, Never}

// actions is the DESIGN §4 table, one row per class.
var actions = [...][len(policies)]Action{
	classAllow:           {Run, Run, Run, Run},
	classUnmatchedSafe:   {Run, Run, Run, Run},
	classUnmatched:       {Ask, Run, Run, Run},
	classUnanalysable:    {Ask, Ask, Ask, Run},
	classRuleOrDangerous: {Ask, Ask, Ask, Deny},
	classForbidden:       {Deny, Deny, Deny, Deny},
}

// Action returns what policy p does with a command evaluated as ev. An
// unknown policy or decision denies: this is the last gate before a
// command runs, so anything it does not understand fails closed.
func (p Policy) Action(ev execpolicy.Evaluation) Action {
	col := -1
	for i, q := range policies {
		if q == p {
			col = i
		}
	}
	if col < 0 {
		return Deny
	}
	c, ok := classify(ev)
	if !ok {
		return Deny
	}
	return actions[c][col]
}

// classify places ev in a row of the table. A prompt with several reasons
// takes the strictest row among them, and a prompt with no reason at all
// counts as a prompt rule.
func classify(ev execpolicy.Evaluation) (class, bool) {
	switch ev.Decision {
	case execpolicy.Allow:
		return classAllow, true
	case execpolicy.Forbidden:
		return classForbidden, true
	case execpolicy.Prompt:
	default:
		return 0, false
	}
	if ev.Dangerous || len(ev.Reasons) == 0 {
		return classRuleOrDangerous, true
	}
	c := classUnmatched
	for _, r := range ev.Reasons {
		switch r.Kind {
		case execpolicy.ReasonUnmatched:
		case execpolicy.ReasonUnanalysable:
			c = max(c, classUnanalysable)
		default:
			// rule, dangerous, and any kind added later.
			c = classRuleOrDangerous
		}
	}
	if c == classUnmatched && ev.KnownSafe {
		c = classUnmatchedSafe
	}
	return c, true
}

// Looser reports whether p runs, or escalates, something q would ask
// about: the columns of the DESIGN §4 table from the strictest,
// untrusted, to the loosest, never (which runs unanalysable scripts;
// that it denies prompt rules does not make it stricter for those it
// runs). An unknown policy is looser than any: it must not pass a ceiling.
func (p Policy) Looser(q Policy) bool {
	rank := func(x Policy) int {
		for i, y := range policies {
			if x == y {
				return i
			}
		}
		return len(policies)
	}
	return rank(p) > rank(q)
}
