//go:build linux

package approval

import (
	"bytes"
	"context"
	"os"
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
		{"garbage forever", strings.Repeat("z", maxKeys+2), nil, Denied},
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
				resp, err := (&TTYApprover{TTY: tty}).Approve(context.Background(), r)
				res <- result{resp, err}
			}()
			scr.waitFor(t, "[d] deny and abort ? ")
			if tc.key == "" {
				master.Close()
			} else if _, err := master.Write([]byte(tc.key)); err != nil {
				t.Fatal(err)
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
				"git push AAAA", "...[307 bytes]...", "TAILEND", "/home/u/proj", "workspace-write",
				"rule: rule git push (default.rules:3)", "default.rules:3:1", "pushes are reviewed",
				`"esc\x1b[2J"`, "[y] once", "[s] session", "[n] deny",
			} {
				if !strings.Contains(shown, want) {
					t.Errorf("prompt lacks %q:\n%s", want, shown)
				}
			}
			if strings.Contains(shown, strings.Repeat("A", 300)) {
				t.Error("long argument shown unshortened")
			}
			if strings.Contains(shown, "\x1b") {
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
	p := renderPrompt(r, promptChoices(r))
	if strings.Contains(p, "[s]") {
		t.Errorf("session offered for a dangerous command:\n%s", p)
	}
}
