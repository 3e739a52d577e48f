package execpolicy

// ReasonKind says why a command got the decision it got. The approval
// policy (package approval) turns a decision and its reason into an action.
type ReasonKind string

// The reasons of DESIGN §4.
const (
	// ReasonRule: a prompt or forbidden rule matched.
	ReasonRule ReasonKind = "rule"
	// ReasonDangerous: the dangerous-command floor raised the command to prompt.
	ReasonDangerous ReasonKind = "dangerous"
	// ReasonUnanalysable: the script is dynamic, outside the plain subset, or unparseable.
	ReasonUnanalysable ReasonKind = "unanalysable"
	// ReasonUnmatched: a plain command that no rule covers.
	ReasonUnmatched ReasonKind = "unmatched"
)

// Reason is one explanation of a decision, with a human-readable detail
// ("rule git push (default.rules:3)", "write redirect to out.txt").
type Reason struct {
	Kind   ReasonKind `json:"kind"`
	Detail string     `json:"detail"`
}

// RuleMatch is one prefix rule that matched a command.
type RuleMatch struct {
	// MatchedPrefix is the rule's pattern resolved against the command: the
	// tokens of the command that the pattern covered. For a host-executable
	// fallback match it starts with the basename.
	MatchedPrefix []string
	Decision      Decision
	// Justification is empty when the rule has none.
	Justification string
	// ResolvedProgram is the absolute path of the program for a
	// host-executable fallback match, empty otherwise.
	ResolvedProgram string
	// Profile is the gatedexec profile= extension, empty when unset.
	Profile string
	// Source is where the rule was defined ("file.rules:3:1").
	Source string
}

// Command is one simple command found in what was checked, with its own
// verdict. For a plain argv there is exactly one.
type Command struct {
	Argv     []string
	Matches  []RuleMatch
	Decision Decision
	// Dynamic is true when some word of the command is not literal.
	Dynamic bool
}

// Evaluation is the verdict of a Policy on one command line.
type Evaluation struct {
	// Decision is the final decision: the most severe over all commands,
	// raised by shell analysis and the dangerous-command floor.
	Decision Decision
	// Matched are the rules matching the top-level argv itself, exactly as
	// Codex reports them (its "matchedRules").
	Matched []RuleMatch
	// Commands are the simple commands found (a script yields many).
	Commands []Command
	// Reasons explain a prompt or forbidden decision; empty for allow.
	Reasons []Reason
	// KnownSafe is true when every command is on the known-safe read-only
	// list, so that the untrusted approval policy may run it without asking.
	KnownSafe bool
	// Dangerous is true when the dangerous-command floor applied; a session
	// approval may not lower such a command.
	Dangerous bool
	// Dynamic is true when the command has dynamic parts; no "always"
	// amendment is offered for it.
	Dynamic bool
	// Profile is the profile= of the allow rules that decided the command,
	// empty for the default profile.
	Profile string
	// Variables are the names of the variables the command line sets,
	// exports or unsets, as the shell decodes them (export $'\x41=1'
	// sets A): assignments, the NAME=VALUE operands of env and sudo, the
	// names a declaration (export, declare, local, readonly, typeset)
	// gives and those of builtins such as read and printf -v. A name with
	// expansions in it is not known, and a declaration builtin run
	// through a wrapper (command export) has its decoded words in its
	// Command's Argv instead.
	Variables []string
}

// PromptRuleMatched reports whether a prompt rule covers a command of ev.
// An allow rule appended for an "always" answer could never outrank it
// (prompt > allow), so offering one would leave a dead rule and keep
// asking.
func (ev Evaluation) PromptRuleMatched() bool {
	for _, c := range ev.Commands {
		for _, m := range c.Matches {
			if m.Decision == Prompt {
				return true
			}
		}
	}
	return false
}
