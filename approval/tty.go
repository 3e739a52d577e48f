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

// maxKeys bounds how many unrecognised inputs (a key, or what one read
// returned: see keys.go) a prompt re-asks for before denying, so that a
// stream of garbage cannot keep it waiting forever.
const maxKeys = 8

// TTYApprover asks a person at a terminal. It writes a framed prompt to
// TTY and reads one key in raw mode, restoring the terminal mode after.
// EOF, Ctrl-C, Ctrl-D, n and read errors deny. Only a key pressed on its
// own answers: a terminal's reply to a query the command wrote, an escape
// sequence or a paste is an unrecognised input (keys.go).
type TTYApprover struct {
	// TTY is the controlling terminal, normally /dev/tty: the command's
	// own stdin and stdout may be pipes and must not answer prompts.
	TTY *os.File
	// Session says a session id is set. Without one an approval "for
	// this session" would last for this one run only, so [s] is not
	// offered: it would look like more than it is.
	Session bool
}

// ErrHangup is the cause (context.Cause) a caller cancels an approval
// with when its terminal hung up (SIGHUP): the prompt then denies, as at
// EOF, where any other cancellation (SIGINT, SIGTERM) aborts.
var ErrHangup = errors.New("terminal hung up")

// Approve prompts for r. A cancelled ctx ends the prompt at once, the
// terminal mode restored: as an abort, or a denial when its cause is
// ErrHangup.
func (a *TTYApprover) Approve(ctx context.Context, r *Request) (Response, error) {
	// The descriptor is only used inside Control: os.File.Fd would put
	// the file in blocking mode, and then no read deadline could end a
	// pending read, so that a signal waited for the next key press (and
	// that key was swallowed).
	rc, err := a.TTY.SyscallConn()
	if err != nil {
		err = fmt.Errorf("approver tty: %w", err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	withFD := func(f func(fd int) error) error {
		var ferr error
		if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
			return err
		}
		return ferr
	}
	var restore func() error
	if err := withFD(func(fd int) (err error) { restore, err = makeRaw(fd); return err }); err != nil {
		err = fmt.Errorf("approver tty: setting raw mode on %s: %w", a.TTY.Name(), err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	defer restore()
	// A cancelled context ends a blocked read: a terminal opened by
	// os.OpenFile is in the runtime poller and supports deadlines.
	stop := context.AfterFunc(ctx, func() { a.TTY.SetReadDeadline(time.Now()) })
	defer stop()
	defer a.TTY.SetReadDeadline(time.Time{})

	if err := withFD(flushInput); err != nil {
		err = fmt.Errorf("approver tty: %w", err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	choices := promptChoices(r, a.Session)
	if _, err := io.WriteString(a.TTY, renderPrompt(r, choices)); err != nil {
		err = fmt.Errorf("approver tty: %w", err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	keys := &keyReader{r: a.TTY}
	for range maxKeys {
		in, err := keys.next()
		if ctx.Err() != nil {
			if errors.Is(context.Cause(ctx), ErrHangup) {
				// The terminal went away: nobody can answer, as at EOF.
				return Response{ID: r.ID, Outcome: Denied, Reason: "no answer from the terminal: it hung up"}, nil
			}
			io.WriteString(a.TTY, "aborted (signal)\r\n")
			return Response{ID: r.ID, Outcome: Abort, Reason: "prompt interrupted by a signal"}, nil
		}
		if err != nil {
			// EOF, a hang-up (EIO on a pty) or cancellation: nobody can
			// answer, so deny.
			io.WriteString(a.TTY, "denied (no answer)\r\n")
			reason := "no answer from the terminal"
			if !errors.Is(err, io.EOF) {
				reason += ": " + err.Error()
			}
			return Response{ID: r.ID, Outcome: Denied, Reason: reason}, nil
		}
		if in.interrupt {
			// Ctrl-C, Ctrl-D
			io.WriteString(a.TTY, "denied\r\n")
			return Response{ID: r.ID, Outcome: Denied, Reason: "interrupted at the terminal"}, nil
		}
		// in.key is 0 for what the terminal typed by itself (keys.go),
		// which is no choice.
		key := in.key
		if key >= 'A' && key <= 'Z' {
			key += 'a' - 'A'
		}
		for _, c := range choices {
			if c.key == key {
				io.WriteString(a.TTY, c.label+"\r\n")
				return Response{ID: r.ID, Outcome: c.outcome, Reason: "answered " + c.label + " at the terminal"}, nil
			}
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
// session approval would be recorded and honoured (a session is set and
// the command is not dangerous), "always" only with a proposed rule.
func promptChoices(r *Request, session bool) []choice {
	cs := []choice{{'y', "once", Approved}}
	if session && !r.Dangerous {
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

// Bounds of what a prompt shows, so that the whole prompt fits a small
// terminal: text that scrolled the command off the screen could draw a
// fake one (padded to the terminal's width) in its place.
const (
	// maxShownText is the longest text shown whole in any other field.
	maxShownText = 160
	// maxShownCommand is the longest command line shown whole.
	maxShownCommand = 640
	// maxShownItems is how many reasons, rules or denials are listed.
	maxShownItems = 4
)

// terminalReset ends what a command's own output may have left the
// terminal in, so that the prompt after it is seen as drawn: CAN abandons
// an escape sequence in progress and ST ends an OSC, DCS, APC or PM string
// (either would swallow the prompt); SGR 0 ends concealed or same-colour
// text; the scroll margins are reset around a cursor save and restore (a
// one-line region would scroll the prompt away under a fake one); ASCII is
// put in G0 and shifted in (a line-drawing set garbles letters). None of
// it clears the screen or moves the cursor.
const terminalReset = "\x18\x1b\\\x1b[0m\x1b7\x1b[r\x1b8\x1b(B\x0f"

// renderPrompt draws the framed prompt. Everything taken from the request
// goes through shown and is shortened, so that a command cannot draw on
// the terminal. The command, cwd and profile come last, just above the
// question: the texts above them are the ones that could grow.
func renderPrompt(r *Request, cs []choice) string {
	var b strings.Builder
	line := func(label, text string) { fmt.Fprintf(&b, "| %-10s %s\r\n", label, text) }
	list := func(label string, n int, item func(i int) string) {
		for i := range min(n, maxShownItems) {
			line(label, ShowText(item(i), maxShownText))
		}
		if n > maxShownItems {
			line(label, "...and "+strconv.Itoa(n-maxShownItems)+" more (all are in the request and the audit log)")
		}
	}
	title := "approve command?"
	switch {
	case r.Kind == KindEscalation && r.Connecting:
		title = "the running command is connecting; allow it?"
	case r.Kind == KindEscalation:
		title = "sandbox stopped this command; re-run with more access?"
	}
	b.WriteString(terminalReset + "\r\n+-- gatedexec: " + title + "\r\n")
	list("reason:", len(r.Reasons), func(i int) string { return string(r.Reasons[i].Kind) + ": " + r.Reasons[i].Detail })
	list("rule:", len(r.Matched), func(i int) string {
		m := r.Matched[i]
		text := execpolicy.QuoteArgv(m.MatchedPrefix) + " -> " + m.Decision
		if m.Source != "" {
			text += " (" + m.Source + ")"
		}
		if m.Justification != "" {
			text += ": " + m.Justification
		}
		return text
	})
	list("denied:", len(r.Denials), func(i int) string {
		text := r.Denials[i].Kind
		if r.Denials[i].Path != "" {
			text += " " + r.Denials[i].Path
		}
		return text
	})
	line("command:", ShowArgv(r.Argv, MaxShownArg, maxShownCommand))
	line("cwd:", ShowText(string(r.Cwd), maxShownCommand))
	if r.Workspace != "" {
		// The profile's grants are relative to it (workspace-write).
		line("workspace:", ShowText(string(r.Workspace), maxShownCommand))
	}
	line("profile:", ShowText(r.Profile, maxShownText))
	if r.Decision != "" {
		line("decision:", ShowText(r.Decision, maxShownText))
	}
	if r.Escalation != "" {
		// What is granted is shown whole: its paths are existing
		// directories the plan chose, not text the command wrote.
		line("requests:", shown(r.Escalation))
	}
	if r.Dangerous {
		line("warning:", "dangerous command; a session approval does not apply to it")
	}
	if r.ProposedRule != nil {
		// Shortening stays inside a quoted token: the rule shown can only
		// look broader than the one written, never narrower.
		line("always:", "appends "+ShowText(execpolicy.FormatAllowRule(r.ProposedRule), maxShownCommand))
	}
	b.WriteString("+-- " + choiceLine(cs) + " ? ")
	return b.String()
}

// ShowArgv renders argv for a person to read, as a prompt shows it: as
// bash would need it typed, so that `touch '$(id)'` is not `touch $(id)`
// and a newline, escape or look-alike byte shows as \n or \xHH, on one
// line of printable ASCII; each argument longer than arg bytes, then the
// whole longer than limit, keeps its head and tail with a mark saying how
// long it was.
func ShowArgv(argv []string, arg, limit int) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = execpolicy.QuoteWord(shortenTo(a, arg))
	}
	return shortenTo(strings.Join(parts, " "), limit)
}

// ShowText renders text taken from a request for a person to read, as a
// prompt shows a field: as it is when printable, else quoted (see
// shown), and shortened to limit bytes as ShowArgv shortens.
func ShowText(s string, limit int) string { return shortenTo(shown(s), limit) }

// shortenTo keeps the head and tail of s when it is longer than limit
// bytes, saying how long it was.
func shortenTo(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	head, tail := s[:limit*3/4], s[len(s)-limit/5:]
	for !utf8.ValidString(head) && len(head) > 0 {
		head = head[:len(head)-1]
	}
	for !utf8.ValidString(tail) && len(tail) > 0 {
		tail = tail[1:]
	}
	return head + "...[" + strconv.Itoa(len(s)) + " bytes]..." + tail
}

// shown returns s as it is when it is printable text, else quoted with
// every control, format or invalid byte escaped, so that it cannot move
// the cursor or redraw the prompt. Printable is strconv.IsPrint's sense:
// it also excludes what changes how text reads without drawing anything
// (bidi overrides and isolates, zero-width characters, soft hyphens) and
// spaces other than ASCII's, any of which would make the command on
// screen differ from the one that runs.
func shown(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
