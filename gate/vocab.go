package gate

import (
	"os"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/profiles"
)

// The approval vocabulary a front end needs to take flags and explain a
// result, so that it speaks to the engine alone.
const (
	// DefaultApproverTimeout bounds an exec approver unless configured.
	DefaultApproverTimeout = approval.DefaultExecTimeout
	// Deferred is the outcome of a request handed back to the caller.
	Deferred = approval.Deferred
	// DenyApproverReason is the reason of every refusal by the deny
	// approver, which asked nobody.
	DenyApproverReason = approval.DenyApproverReason
)

// ErrHangup, as a context's cause, ends a pending approval as a denial
// (the terminal of a tty prompt closed) rather than an abort.
var ErrHangup = approval.ErrHangup

// CheckResumeValue checks an --approve (withScope) or --deny value.
func CheckResumeValue(v string, withScope bool) error {
	return approval.CheckResumeValue(v, withScope)
}

// ApprovalPolicies are the approval policies' names (DESIGN §4).
func ApprovalPolicies() []string {
	return []string{string(approval.Untrusted), string(approval.OnRequest), string(approval.OnFailure), string(approval.Never)}
}

// Interactive reports whether a person can be asked: stdin and stderr are
// both terminals.
func Interactive(stdin, stderr *os.File) bool {
	return approval.IsTerminal(int(stdin.Fd())) && approval.IsTerminal(int(stderr.Fd()))
}

// DefaultProfile is the profile a command runs in when neither a rule
// nor the configuration names one.
const DefaultProfile = profiles.DefaultProfile

// The actions of DESIGN §4 that a front end answers by.
const (
	ActionRun  = approval.Run
	ActionAsk  = approval.Ask
	ActionDeny = approval.Deny
)

// IsProfileFile reports whether a --profile value names a profile file
// rather than a profile by name.
func IsProfileFile(nameOrFile string) bool { return profiles.IsFile(nameOrFile) }

// CheckSessionID checks the syntax of a session id (--session).
func CheckSessionID(id string) error { return approval.CheckSessionID(id) }
