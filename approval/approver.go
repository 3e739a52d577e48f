package approval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Approver answers approval requests. An error means no answer could be
// had; the caller treats it as a denial and reports it. Implementations
// return a Response whose ID is the request's.
type Approver interface {
	Approve(ctx context.Context, r *Request) (Response, error)
}

// ErrUsage is wrapped by ParseApprover's errors for a malformed spec.
var ErrUsage = errors.New("invalid approver")

// Options configure the approvers ParseApprover builds.
type Options struct {
	// TTY is the terminal the tty approver prompts on; nil makes
	// ParseApprover open /dev/tty.
	TTY *os.File
	// ExecTimeout bounds an exec approver; 0 means DefaultExecTimeout.
	ExecTimeout time.Duration
	// ExecStderr receives the exec approver's stderr; nil discards it.
	ExecStderr io.Writer
	// ExecEnv is the exec approver's environment; nil means the caller's.
	ExecEnv []string
	// Status is where gatedexec says it is waiting for an exec approver.
	Status io.Writer
	// Session says a session id is set, so that a session approval lasts:
	// only then does the tty prompt offer [s].
	Session bool
	// NoTerminal keeps any terminal from an exec approver
	// (ExecApprover.NoTerminal).
	NoTerminal bool
}

// ParseApprover builds the approver named by spec: "tty", "deny",
// "defer" or "exec:CMD".
func ParseApprover(spec string, opts Options) (Approver, error) {
	switch {
	case spec == "deny":
		return DenyApprover{}, nil
	case spec == "defer":
		return DeferApprover{}, nil
	case spec == "tty":
		f := opts.TTY
		if f == nil {
			var err error
			f, err = os.OpenFile("/dev/tty", os.O_RDWR, 0)
			if err != nil {
				return nil, fmt.Errorf("approver tty: %w", err)
			}
		}
		return &TTYApprover{TTY: f, Session: opts.Session}, nil
	case strings.HasPrefix(spec, "exec:"):
		argv, err := SplitCommand(strings.TrimPrefix(spec, "exec:"))
		if err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrUsage, spec, err)
		}
		return &ExecApprover{Argv: argv, Timeout: opts.ExecTimeout, Stderr: opts.ExecStderr, Status: opts.Status, Env: opts.ExecEnv,
			NoTerminal: opts.NoTerminal}, nil
	}
	return nil, fmt.Errorf("%w %q (want tty, deny, defer or exec:CMD)", ErrUsage, spec)
}

// DenyApproverReason is the reason of every DenyApprover answer, so that
// callers can tell "nobody could be asked" from a person's refusal.
const DenyApproverReason = "approver deny refuses every request"

// DenyApprover denies every request; it is the default without a terminal.
type DenyApprover struct{}

// Approve denies r.
func (DenyApprover) Approve(_ context.Context, r *Request) (Response, error) {
	return Response{ID: r.ID, Outcome: Denied, Reason: DenyApproverReason}, nil
}
