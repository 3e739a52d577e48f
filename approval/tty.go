package approval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gatedexec/gatedexec/execpolicy"
)

// MaxShownArg is the longest argument shown whole in a tty prompt; longer
// ones are shortened on screen (never in requests or the audit log).
const MaxShownArg = 200

// maxKeys bounds how many unrecognised keys a prompt re-asks for before
// denying, so that a stream of garbage cannot keep it waiting forever.
const maxKeys = 8

// TTYApprover asks a person at a terminal. It writes a framed prompt to
// TTY and reads one key in raw mode, restoring the terminal mode after.
// EOF, Ctrl-C, Ctrl-D, n and read errors deny.
type TTYApprover struct {
	// TTY is the controlling terminal, normally /dev/tty: the command's
	// own stdin and stdout may be pipes and must not answer prompts.
	TTY *os.File
}

// Approve prompts for r.
func (a *TTYApprover) Approve(ctx context.Context, r *Request) (Response, error) {
	fd := int(a.TTY.Fd())
	restore, err := makeRaw(fd)
	if err != nil {
		err = fmt.Errorf("approver tty: setting raw mode on %s: %w", a.TTY.Name(), err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	defer restore()
	// A cancelled context ends a blocked read where the file supports
	// deadlines (a terminal opened by os.OpenFile does).
	stop := context.AfterFunc(ctx, func() { a.TTY.SetReadDeadline(time.Now()) })
	defer stop()
	defer a.TTY.SetReadDeadline(time.Time{})

	if err := flushInput(fd); err != nil {
		err = fmt.Errorf("approver tty: %w", err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	choices := promptChoices(r)
	if _, err := io.WriteString(a.TTY, renderPrompt(r, choices)); err != nil {
		err = fmt.Errorf("approver tty: %w", err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	buf := make([]byte, 1)
	for range maxKeys {
		n, err := a.TTY.Read(buf)
		if n == 0 || err != nil {
			// EOF, a hang-up (EIO on a pty) or cancellation: nobody can
			// answer, so deny.
			io.WriteString(a.TTY, "denied (no answer)\r\n")
			reason := "no answer from the terminal"
			if err != nil && !errors.Is(err, io.EOF) {
				reason += ": " + err.Error()
			}
			return Response{ID: r.ID, Outcome: Denied, Reason: reason}, nil
		}
		key := buf[0]
		if key >= 'A' && key <= 'Z' {
			key += 'a' - 'A'
		}
		for _, c := range choices {
			if c.key == key {
				io.WriteString(a.TTY, c.label+"\r\n")
				return Response{ID: r.ID, Outcome: c.outcome, Reason: "answered " + c.label + " at the terminal"}, nil
			}
		}
		switch key {
		case 0x03, 0x04: // Ctrl-C, Ctrl-D
			io.WriteString(a.TTY, "denied\r\n")
			return Response{ID: r.ID, Outcome: Denied, Reason: "interrupted at the terminal"}, nil
		}
		io.WriteString(a.TTY, "? "+choiceLine(choices)+" ")
	}
	io.WriteString(a.TTY, "denied (too many unrecognised keys)\r\n")
	return Response{ID: r.ID, Outcome: Denied, Reason: "too many unrecognised keys at the terminal"}, nil
}

// choice is one answer a prompt offers.
type choice struct {
	key     byte
	label   string
	outcome Outcome
}

// promptChoices lists the answers offered for r: "session" only when a
// session approval would be honoured, "always" only with a proposed rule.
func promptChoices(r *Request) []choice {
	cs := []choice{{'y', "once", Approved}}
	if !r.Dangerous {
		cs = append(cs, choice{'s', "session", ApprovedForSession})
	}
	if r.ProposedRule != nil {
		cs = append(cs, choice{'a', "always", ApprovedAlways})
	}
	return append(cs, choice{'n', "deny", Denied}, choice{'d', "deny and abort", Abort})
}

func choiceLine(cs []choice) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = "[" + string(c.key) + "] " + c.label
	}
	return strings.Join(parts, "  ")
}

// renderPrompt draws the framed prompt. Everything taken from the request
// goes through shown, so that a command cannot draw on the terminal.
func renderPrompt(r *Request, cs []choice) string {
	var b strings.Builder
	line := func(label, text string) { fmt.Fprintf(&b, "| %-9s %s\r\n", label, text) }
	title := "approve command?"
	if r.Kind == KindEscalation {
		title = "sandbox stopped this command; re-run with more access?"
	}
	b.WriteString("\r\n+-- gatedexec: " + title + "\r\n")
	line("command:", showArgv(r.Argv))
	line("cwd:", shown(r.Cwd))
	line("profile:", shown(r.Profile))
	if r.Decision != "" {
		line("decision:", shown(r.Decision))
	}
	for _, rs := range r.Reasons {
		line("reason:", shown(string(rs.Kind)+": "+rs.Detail))
	}
	for _, m := range r.Matched {
		text := strings.Join(m.MatchedPrefix, " ") + " -> " + m.Decision
		if m.Source != "" {
			text += " (" + m.Source + ")"
		}
		if m.Justification != "" {
			text += ": " + m.Justification
		}
		line("rule:", shown(text))
	}
	for _, d := range r.Denials {
		text := d.Kind
		if d.Path != "" {
			text += " " + d.Path
		}
		line("denied:", shown(text))
	}
	if r.Escalation != "" {
		line("requests:", shown(r.Escalation))
	}
	if r.Dangerous {
		line("warning:", "dangerous command; a session approval does not apply to it")
	}
	if r.ProposedRule != nil {
		line("always:", "appends "+shown(execpolicy.FormatAllowRule(r.ProposedRule)))
	}
	b.WriteString("+-- " + choiceLine(cs) + " ? ")
	return b.String()
}

// showArgv renders argv as shell words, shortening long ones.
func showArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shownArg(a)
	}
	return strings.Join(parts, " ")
}

// shorten keeps the head and tail of a long argument.
func shorten(s string) string {
	if len(s) <= MaxShownArg {
		return s
	}
	head, tail := s[:MaxShownArg*3/4], s[len(s)-MaxShownArg/5:]
	for !utf8.ValidString(head) && len(head) > 0 {
		head = head[:len(head)-1]
	}
	for !utf8.ValidString(tail) && len(tail) > 0 {
		tail = tail[1:]
	}
	return head + "...[" + strconv.Itoa(len(s)) + " bytes]..." + tail
}

// shown returns s as it is when it is printable text, else quoted with
// every control or invalid byte escaped, so that it cannot move the
// cursor or redraw the prompt.
func shown(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 {
			return strconv.Quote(s)
		}
	}
	return s
}

// shownArg is shown for one argument, shortened when long: also quoted
// when it is empty or holds blanks, quotes or backslashes, so that word
// boundaries stay visible ("a b" is not a and b).
func shownArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"'\\") {
		return strconv.Quote(shorten(s))
	}
	return shown(shorten(s))
}
