//go:build linux

package approval

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/gatedexec/gatedexec/execpolicy"
	"golang.org/x/sys/unix"
)

// screen collects what the approver wrote to the terminal.
type screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
	done chan struct{}
}

func readScreen(master *os.File) *screen {
	s := &screen{more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows sub; the bound only stops a broken
// test from hanging, it asserts nothing about speed.
func (s *screen) waitFor(t *testing.T, sub string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(s.text(), sub) {
		select {
		case <-s.more:
		case <-s.done:
			if !strings.Contains(s.text(), sub) {
				t.Fatalf("terminal closed before showing %q; it showed:\n%s", sub, s.text())
			}
		case <-deadline:
			t.Fatalf("terminal never showed %q; it showed:\n%s", sub, s.text())
		}
	}
}

// waitCount waits until the screen shows sub n times.
func (s *screen) waitCount(t *testing.T, sub string, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for strings.Count(s.text(), sub) < n {
		select {
		case <-s.more:
		case <-s.done:
			if strings.Count(s.text(), sub) < n {
				t.Fatalf("terminal closed before showing %q %d times; it showed:\n%s", sub, n, s.text())
			}
		case <-deadline:
			t.Fatalf("terminal never showed %q %d times; it showed:\n%s", sub, n, s.text())
		}
	}
}

// openPTY returns a pty whose master is non-blocking, so that Close
// interrupts the screen reader and really hangs up the terminal (a
// blocking os.File defers the close until a pending Read returns).
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Dup(int(m.Fd()))
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	m.Close()
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fd), "ptmx"), tty
}

func ttyRequest(proposed []string) *Request {
	long := strings.Repeat("A", 300) + "TAILEND"
	return &Request{
		ID: "0123456789abcdef0123456789abcdef", Argv: []string{"git", "push", long, "esc\x1b[2J"},
		Cwd: "/home/u/proj", Profile: "workspace-write", Decision: "prompt",
		Reasons:      []execpolicy.Reason{{Kind: "rule", Detail: "rule git push (default.rules:3)"}},
		Matched:      []MatchedRule{{MatchedPrefix: []string{"git", "push"}, Decision: "prompt", Source: "default.rules:3:1", Justification: "pushes are reviewed"}},
		ProposedRule: proposed, Kind: KindExec,
	}
}

func TestTTYApprover(t *testing.T) {
	for _, tc := range []struct {
		name     string
		key      string // "" closes the master (EOF)
		proposed []string
		want     Outcome
	}{
		{"y", "y", nil, Approved},
		{"Y", "Y", nil, Approved},
		{"s", "s", nil, ApprovedForSession},
		{"a", "a", []string{"git", "push"}, ApprovedAlways},
		{"a not offered", "a\x01n", nil, Denied},
		{"n", "n", nil, Denied},
		{"d", "d", nil, Abort},
		{"ctrl-c", "\x03", nil, Denied},
		{"ctrl-d", "\x04", nil, Denied},
		{"unknown then y", "zq\ry", nil, Approved},
		{"garbage forever", strings.Repeat("z", maxKeys), nil, Denied},
		// A terminal's reply to a query, split over reads: no answer.
		{"reply then n", "\x1b[4;2$yn", nil, Denied},
		{"eof", "", nil, Denied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, tty := openPTY(t)
			defer tty.Close()
			defer master.Close()
			before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			scr := readScreen(master)
			r := ttyRequest(tc.proposed)
			type result struct {
				resp Response
				err  error
			}
			res := make(chan result, 1)
			go func() {
				resp, err := (&TTYApprover{TTY: tty, Session: true}).Approve(context.Background(), r)
				res <- result{resp, err}
			}()
			scr.waitFor(t, "[d] deny and abort ? ")
			if tc.key == "" {
				master.Close()
			}
			// One key a read, each after the prompt (or its re-prompt)
			// is drawn, as a person types: keys that arrive together
			// are no answer (keys.go).
			for i := range len(tc.key) {
				scr.waitCount(t, "[d] deny and abort", i+1)
				if _, err := master.Write([]byte{tc.key[i]}); err != nil {
					t.Fatal(err)
				}
			}
			got := <-res
			if got.err != nil || got.resp.Outcome != tc.want || got.resp.ID != r.ID {
				t.Fatalf("Approve = %+v, %v; want %s", got.resp, got.err, tc.want)
			}
			after, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			switch {
			case err != nil && tc.key == "":
				// A hung-up pty answers no ioctls; nothing to check.
			case err != nil:
				t.Fatal(err)
			case after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Cflag != before.Cflag || after.Cc != before.Cc:
				t.Errorf("terminal mode not restored: before %+v after %+v", before, after)
			}

			shown := scr.text()
			for _, want := range []string{
				"git push 'AAAA", "...[307 bytes]...", "TAILEND'", "/home/u/proj", "workspace-write",
				"rule: rule git push (default.rules:3)", "default.rules:3:1", "pushes are reviewed",
				`$'esc\x1b[2J'`, "[y] once", "[s] session", "[n] deny",
			} {
				if !strings.Contains(shown, want) {
					t.Errorf("prompt lacks %q:\n%s", want, shown)
				}
			}
			if strings.Contains(shown, strings.Repeat("A", 300)) {
				t.Error("long argument shown unshortened")
			}
			if strings.Contains(strings.ReplaceAll(shown, terminalReset, ""), "\x1b") {
				t.Error("raw escape byte from argv reached the terminal")
			}
			rule := `prefix_rule(pattern=["git", "push"], decision="allow")`
			if offered := strings.Contains(shown, "[a] always"); offered != (tc.proposed != nil) {
				t.Errorf("always offered = %v, want %v", offered, tc.proposed != nil)
			}
			if tc.proposed != nil && !strings.Contains(shown, rule) {
				t.Errorf("prompt does not show the rule %s:\n%s", rule, shown)
			}
		})
	}
}

func TestTTYApproverDangerousHasNoSession(t *testing.T) {
	r := ttyRequest(nil)
	r.Dangerous = true
	p := renderPrompt(r, promptChoices(r, true))
	if strings.Contains(p, "[s]") {
		t.Errorf("session offered for a dangerous command:\n%s", p)
	}
}

// TestPromptShowsNoInvisibleText checks that text which reorders or hides
// characters on a terminal (bidi overrides and isolates, zero-width and
// non-ASCII spaces, soft hyphens) is escaped in every field of the prompt,
// so that what is shown reads as what runs.
func TestPromptShowsNoInvisibleText(t *testing.T) {
	for _, bad := range []string{"\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u061c",
		"\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u00a0", "\u3000", "\u2028"} {
		r := &Request{
			ID: "x", Kind: KindEscalation,
			Argv:       []string{"touch", "safe" + bad + "txt.exe"},
			Cwd:        Bytes("/w" + bad),
			Profile:    "p" + bad,
			Reasons:    []execpolicy.Reason{{Kind: execpolicy.ReasonRule, Detail: "d" + bad}},
			Matched:    []MatchedRule{{MatchedPrefix: []string{"touch"}, Decision: "prompt", Justification: "j" + bad}},
			Denials:    []Denial{{Kind: "fs-write", Path: "/x" + bad}},
			Escalation: "write access to /x" + bad,
		}
		p := renderPrompt(r, promptChoices(r, true))
		if strings.Contains(p, bad) {
			t.Errorf("prompt shows %U raw:\n%s", []rune(bad)[0], p)
		}
	}
}

// TestPromptIsBounded checks that no field can make the prompt so long
// that the command scrolls off the terminal and padded text draws a fake
// prompt in its place: every text is shortened and lists are capped.
func TestPromptIsBounded(t *testing.T) {
	long := strings.Repeat("x", 100_000) + "| command:  ls"
	r := &Request{ID: "x", Kind: KindEscalation, Argv: []string{"rm", "-rf", "/home/u"}, Cwd: Bytes("/w" + long), Profile: "p" + long,
		ProposedRule: []string{"rm", long}}
	for range 1000 {
		r.Argv = append(r.Argv, strings.Repeat("a", MaxShownArg))
	}
	for range 100 {
		r.Reasons = append(r.Reasons, execpolicy.Reason{Kind: execpolicy.ReasonUnmatched, Detail: long})
		r.Matched = append(r.Matched, MatchedRule{MatchedPrefix: []string{"rm"}, Decision: "prompt", Justification: long})
		r.Denials = append(r.Denials, Denial{Kind: "fs-write", Path: "/" + long})
	}
	p := renderPrompt(r, promptChoices(r, true))
	if !regexp.MustCompile(`\| command: +rm -rf /home/u `).MatchString(p) {
		t.Errorf("prompt lacks the head of the command:\n%.400s", p)
	}
	if n := len(p); n > 8<<10 {
		t.Errorf("prompt is %d bytes, want at most %d", n, 8<<10)
	}
	if n := strings.Count(p, "\n"); n > 40 {
		t.Errorf("prompt has %d lines, want at most 40", n)
	}
}

// TestPromptResetsTerminal checks that the prompt first ends whatever
// state the command's own output left the terminal in: an unterminated
// OSC/DCS string would swallow the prompt, concealed text (SGR 8) or a
// one-line scroll region would hide it, and the command's fake prompt
// drawn before would be what the person answers.
func TestPromptResetsTerminal(t *testing.T) {
	r := &Request{ID: "x", Kind: KindEscalation, Argv: []string{"make"}, Escalation: "write access to /"}
	p := renderPrompt(r, promptChoices(r, true))
	head, _, ok := strings.Cut(p, "+-- gatedexec:")
	if !ok {
		t.Fatalf("no frame in prompt %q", p)
	}
	for _, want := range []struct{ seq, why string }{
		{"\x18", "CAN, abandoning an escape sequence in progress"},
		{"\x1b\\", "ST, ending an OSC, DCS, APC or PM string"},
		{"\x1b[0m", "SGR reset, ending concealed or same-colour text"},
		{"\x1b7\x1b[r\x1b8", "scroll margins reset, cursor kept"},
		{"\x1b(B\x0f", "ASCII character set in G0, shifted in"},
	} {
		if !strings.Contains(head, want.seq) {
			t.Errorf("prompt does not start with %s (%q); head %q", want.why, want.seq, head)
		}
	}
}

// TestPromptShowsWholeEscalation checks that the access an escalation
// grants is never shortened on screen, however many changes it holds.
func TestPromptShowsWholeEscalation(t *testing.T) {
	var parts []string
	for i := range 17 {
		parts = append(parts, "write access to /srv/"+strings.Repeat("d", 40)+strconv.Itoa(i))
	}
	parts[8] = "write access to /"
	r := &Request{ID: "x", Kind: KindEscalation, Argv: []string{"make"}, Escalation: strings.Join(parts, "; ")}
	if p := renderPrompt(r, promptChoices(r, true)); !regexp.MustCompile(`\| requests: +` + regexp.QuoteMeta(r.Escalation) + "\r\n").MatchString(p) {
		t.Errorf("prompt does not show the whole escalation %q:\n%s", r.Escalation, p)
	}
}

// TestPromptShowsWorkspace checks that the prompt names the workspace: a
// profile such as workspace-write grants it, so "-w /" with the same
// profile name is another sandbox, and the person must be able to see it.
func TestPromptShowsWorkspace(t *testing.T) {
	r := &Request{ID: "x", Kind: KindExec, Argv: []string{"make"}, Cwd: "/home/u/proj", Workspace: "/", Profile: "workspace-write"}
	if p := renderPrompt(r, promptChoices(r, true)); !regexp.MustCompile(`\| workspace: +/\r\n`).MatchString(p) {
		t.Errorf("prompt does not show the workspace:\n%s", p)
	}
}

// TestPromptEscapesNonASCIIArgv checks that argv words outside ASCII are
// shown escaped: "gіt" with a Cyrillic і is not the git a rule names,
// and must not look like it (git's core.quotePath makes the same choice).
func TestPromptEscapesNonASCIIArgv(t *testing.T) {
	r := &Request{ID: "x", Kind: KindExec, Argv: []string{"g\u0456t", "push", "caf\u00e9"}}
	p := renderPrompt(r, promptChoices(r, true))
	if !regexp.MustCompile(`\| command: +\$'g\\xd1\\x96t' push \$'caf\\xc3\\xa9'\r\n`).MatchString(p) {
		t.Errorf("prompt does not escape non-ASCII argv:\n%s", p)
	}
}

// TestPromptQuotesArgvForBash: the command is shown as bash would need it
// typed (issue 11 item 10): touch $(id) would be another command.
func TestPromptQuotesArgvForBash(t *testing.T) {
	r := &Request{ID: "x", Kind: KindExec, Argv: []string{"touch", "$(id)", "semi;colon", "$HOME", "it's", ""}}
	p := renderPrompt(r, promptChoices(r, true))
	want := `| command:   touch '$(id)' 'semi;colon' '$HOME' 'it'\''s' ''` + "\r\n"
	if !strings.Contains(p, want) {
		t.Errorf("prompt does not show %q:\n%s", want, p)
	}
}

// TestPromptTitles checks that the prompt says what is asked: a command
// to run, a re-run with more access, or a connection the running command
// is making now (a prompt network rule), where nothing is re-run.
func TestPromptTitles(t *testing.T) {
	for _, c := range []struct {
		r    Request
		want string
	}{
		{Request{ID: "x", Kind: KindExec, Argv: []string{"make"}}, "approve command?"},
		{Request{ID: "x", Kind: KindEscalation, Argv: []string{"make"}, Escalation: "write /srv"}, "sandbox stopped this command; re-run with more access?"},
		{Request{ID: "x", Kind: KindEscalation, Argv: []string{"curl"}, Escalation: "connections to h:443", ProposedHost: "h", Connecting: true},
			"the running command is connecting; allow it?"},
	} {
		p := renderPrompt(&c.r, promptChoices(&c.r, true))
		if !strings.Contains(p, "gatedexec: "+c.want+"\r\n") {
			t.Errorf("%s request: want title %q in\n%s", c.r.Kind, c.want, p)
		}
		if c.r.Connecting && strings.Contains(p, "re-run") {
			t.Errorf("a connection prompt speaks of a re-run:\n%s", p)
		}
	}
}
