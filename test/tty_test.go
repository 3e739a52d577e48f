//go:build unix

package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ttyDeadline bounds every wait on a gatedexec run in a pseudo-terminal.
// Reaching it fails the test: it catches a hang, it does not time anything.
const ttyDeadline = 10 * time.Second

// lastChoice ends both the framed prompt and the re-prompt after an
// unrecognised key, so waiting for it means "the prompt is waiting for a key".
const lastChoice = "[d] deny and abort"

// ttyLog collects what a process writes to its terminal and lets a test
// wait for text to appear.
type ttyLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
	done    bool          // the terminal was closed
}

func newTTYLog() *ttyLog { return &ttyLog{changed: make(chan struct{})} }

// copyFrom reads r until it fails (EIO once every slave fd is closed).
func (l *ttyLog) copyFrom(r *os.File) {
	b := make([]byte, 4096)
	for {
		n, err := r.Read(b)
		l.mu.Lock()
		l.buf.Write(b[:n])
		if err != nil {
			l.done = true
		}
		close(l.changed)
		l.changed = make(chan struct{})
		l.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (l *ttyLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitFor waits until text appears at or after offset from and returns the
// offset just past it.
func (l *ttyLog) waitFor(t *testing.T, from int, text string) int {
	t.Helper()
	deadline := time.NewTimer(ttyDeadline)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		out := l.buf.String()
		ch, done := l.changed, l.done
		l.mu.Unlock()
		if i := strings.Index(out[min(from, len(out)):], text); i >= 0 {
			return from + i + len(text)
		}
		if done {
			t.Fatalf("terminal closed before %q appeared; it showed:\n%s", text, out)
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("%q did not appear on the terminal within %v; it showed:\n%s", text, ttyDeadline, out)
		}
	}
}

// ttyRun is one gatedexec process whose controlling terminal is a pty.
type ttyRun struct {
	cmd    *exec.Cmd
	pty    *os.File
	log    *ttyLog
	read   chan struct{} // closed when the pty reader stops
	exited chan error    // receives cmd.Wait's result
	cursor int           // how far waitPrompt has read
}

// startTTY starts the gatedexec binary with args on a new pty, which
// becomes its controlling terminal (so /dev/tty is the pty too).
func startTTY(t *testing.T, env []string, args ...string) *ttyRun {
	t.Helper()
	cmd := exec.Command(gatedexecBin, args...)
	cmd.Env = env
	return startOnTTY(t, cmd)
}

// startOnTTY starts cmd on a new pty, which becomes its controlling
// terminal.
func startOnTTY(t *testing.T, cmd *exec.Cmd) *ttyRun {
	t.Helper()
	pm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 250})
	if err != nil {
		t.Fatalf("starting gatedexec on a pty: %v", err)
	}
	m, err := pollable(pm)
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("pty master: %v", err)
	}
	r := &ttyRun{cmd: cmd, pty: m, log: newTTYLog(), read: make(chan struct{}), exited: make(chan error, 1)}
	go func() {
		defer close(r.read)
		r.log.copyFrom(m)
	}()
	go func() { r.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
		m.Close()
	})
	return r
}

// pollable returns f as a non-blocking file in the runtime poller and
// closes f. Closing a blocking file does not close its descriptor while a
// Read is pending on it, so a test could never hang up the terminal.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// waitPrompt waits for the next prompt (or re-prompt) to end.
func (r *ttyRun) waitPrompt(t *testing.T) {
	t.Helper()
	r.cursor = r.log.waitFor(t, r.cursor, lastChoice)
}

// send types keys on the terminal.
func (r *ttyRun) send(t *testing.T, keys string) {
	t.Helper()
	if _, err := r.pty.Write([]byte(keys)); err != nil {
		t.Fatalf("typing %q: %v", keys, err)
	}
}

// wait waits for gatedexec to exit and its terminal output to end, and
// returns its exit code (-1 when a signal killed it) and that output, as
// a screen shows it.
func (r *ttyRun) wait(t *testing.T) (int, string) {
	t.Helper()
	deadline := time.NewTimer(ttyDeadline)
	defer deadline.Stop()
	var err error
	select {
	case err = <-r.exited:
	case <-deadline.C:
		r.cmd.Process.Kill()
		t.Fatalf("gatedexec did not exit within %v; the terminal showed:\n%s", ttyDeadline, r.log.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("waiting for gatedexec: %v", err)
	}
	select {
	case <-r.read:
	case <-deadline.C:
		t.Fatalf("the terminal stayed open after gatedexec exited; it showed:\n%s", r.log.String())
	}
	return r.cmd.ProcessState.ExitCode(), screen(r.log.String())
}

// screen drops carriage returns, which the terminal adds or not depending
// on its output mode, so that tests can match lines.
func screen(out string) string { return strings.ReplaceAll(out, "\r", "") }

// gateFixture is an isolated home, configuration, state and workspace for
// gatedexec runs, with a rules file given by -r.
type gateFixture struct {
	dir       string
	ws        string // real path, as gatedexec shows it
	rules     string
	audit     string
	userRules string // the user layer's rules/default.rules
	session   string // the session store directory
	env       []string
}

func newGateFixture(t testing.TB, rules string) gateFixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := gateFixture{
		dir:       dir,
		ws:        filepath.Join(dir, "ws"),
		rules:     filepath.Join(dir, "r.rules"),
		audit:     filepath.Join(dir, "audit.jsonl"),
		userRules: filepath.Join(dir, "config", "gatedexec", "rules", "default.rules"),
		session:   filepath.Join(dir, "state", "gatedexec", "sessions"),
	}
	for _, d := range []string{f.ws, filepath.Join(dir, "home")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.rules, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || strings.HasPrefix(name, "XDG_") || strings.HasPrefix(name, "GATEDEXEC_") {
			continue
		}
		f.env = append(f.env, kv)
	}
	f.env = append(f.env, "HOME="+filepath.Join(dir, "home"), "TERM=xterm",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"GATEDEXEC_SYSTEM_DIR="+filepath.Join(dir, "etc"), "GATEDEXEC_AUDIT_LOG="+f.audit)
	return f
}

// runArgs is `gatedexec run` with the tty approver on the fixture, writing
// its result to result, then extra flags, then -- and argv.
func (f gateFixture) runArgs(result string, extra []string, argv ...string) []string {
	return f.runWith("tty", result, extra, argv...)
}

// runWith is runArgs with another approver.
func (f gateFixture) runWith(approver, result string, extra []string, argv ...string) []string {
	args := []string{"run", "--approver", approver, "-r", f.rules, "-C", f.ws, "-w", f.ws,
		"--audit-log", f.audit, "--result-file", result}
	args = append(append(args, extra...), "--")
	return append(args, argv...)
}

// runResult is the part of `run --result-file` a test checks.
type runResult struct {
	Decision string `json:"decision"`
	Approval struct {
		By      string `json:"by"`
		Outcome string `json:"outcome"`
		Reason  string `json:"reason"`
	} `json:"approval"`
	Profile  string `json:"profile"`
	ExitCode int    `json:"exit_code"`
}

func readResult(t *testing.T, path string) runResult {
	t.Helper()
	r, _ := readJSON[runResult](t, "result file", path)
	return r
}

// readJSON decodes the JSON file at path, named what in failures, and
// returns it with the file's bytes.
func readJSON[T any](t *testing.T, what, path string) (T, []byte) {
	t.Helper()
	var v T
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the %s: %v", what, err)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s %s: %v\n%s", what, path, err, data)
	}
	return v, data
}

// auditRecord is the part of an audit line a test checks.
type auditRecord struct {
	Argv     []string `json:"argv"`
	Cwd      string   `json:"cwd"`
	Decision string   `json:"decision"`
	Approver string   `json:"approver"`
	Outcome  string   `json:"outcome"`
	Exit     *int     `json:"exit"`
}

func readAudit(t *testing.T, path string) []auditRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	var recs []auditRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r auditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// frameLine matches one "| label text" line of the framed prompt.
func frameLine(label, text string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(label) + ` +` + regexp.QuoteMeta(text) + "$")
}

// checkFrame asserts that out shows a prompt frame with all of lines and
// none of absent (substrings).
func checkFrame(t *testing.T, out string, lines []*regexp.Regexp, absent []string) {
	t.Helper()
	if !strings.Contains(out, "+-- gatedexec: approve command?\n") {
		t.Errorf("no prompt title on the terminal:\n%s", out)
	}
	for _, re := range lines {
		if !re.MatchString(out) {
			t.Errorf("the prompt shows no line matching %s:\n%s", re, out)
		}
	}
	for _, s := range absent {
		if strings.Contains(out, s) {
			t.Errorf("the prompt shows %q, which it should not:\n%s", s, out)
		}
	}
}

// answerShown returns what the prompt printed after the last key it read.
func answerShown(out string) string {
	i := strings.LastIndex(out, lastChoice)
	if i < 0 {
		return ""
	}
	tail := strings.TrimLeft(out[i+len(lastChoice):], " ?")
	line, _, _ := strings.Cut(tail, "\n")
	return line
}

// TestTTYKeys answers the terminal prompt of `gatedexec run` with each key a
// person could press, and checks what ran, the exit status, what the
// prompt showed and what the result file and audit log say.
func TestTTYKeys(t *testing.T) {
	const rules = `prefix_rule(pattern=["touch"], decision="prompt", justification="creates files")` + "\n"
	// No --session: [s] is not offered (issue 11 item 13), it would
	// approve this one run only.
	const choices = "+-- [y] once  [n] deny  [d] deny and abort ? "
	tests := []struct {
		name string
		// keys are typed one element per prompt, each after the prompt
		// (or re-prompt) has been drawn.
		keys    []string
		prompts int // how many times the prompt is drawn
		code    int
		ran     bool
		shown   string // the answer printed after the last key
		outcome string
		reason  string // a substring of the approval reason
	}{
		{name: "once", keys: []string{"y"}, prompts: 1, code: 0, ran: true, shown: "once", outcome: "approved"},
		{name: "once-uppercase", keys: []string{"Y"}, prompts: 1, code: 0, ran: true, shown: "once", outcome: "approved"},
		{name: "session-without-session-id", keys: []string{"s", "y"}, prompts: 2, code: 0, ran: true, shown: "once", outcome: "approved"},
		{name: "deny", keys: []string{"n"}, prompts: 1, code: 77, shown: "deny", outcome: "denied"},
		{name: "abort", keys: []string{"d"}, prompts: 1, code: 77, shown: "deny and abort", outcome: "abort"},
		{name: "ctrl-c", keys: []string{"\x03"}, prompts: 1, code: 77, shown: "denied", outcome: "denied", reason: "interrupted"},
		{name: "ctrl-d", keys: []string{"\x04"}, prompts: 1, code: 77, shown: "denied", outcome: "denied", reason: "interrupted"},
		// "always" is not offered while a prompt rule matches: the allow
		// rule it would write could never outrank the prompt rule.
		{name: "always-not-offered", keys: []string{"a", "y"}, prompts: 2, code: 0, ran: true, shown: "once", outcome: "approved"},
		{name: "unknown-key-reprompts", keys: []string{"x", "y"}, prompts: 2, code: 0, ran: true, shown: "once", outcome: "approved"},
		{name: "unknown-then-deny", keys: []string{"?", "\r", "n"}, prompts: 3, code: 77, shown: "deny", outcome: "denied"},
		// Typed one at a time: eight at once are one paste (a burst is
		// one unrecognised input, approval/keys.go).
		{name: "too-many-unknown-keys", keys: strings.Split("xxxxxxxx", ""), prompts: 9, code: 77, shown: "denied (too many unrecognised keys)", outcome: "denied", reason: "unrecognised"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newGateFixture(t, rules)
			target := filepath.Join(f.ws, "made")
			result := filepath.Join(f.dir, "result.json")
			r := startTTY(t, f.env, f.runArgs(result, nil, "touch", "made")...)
			for _, k := range tt.keys {
				r.waitPrompt(t)
				r.send(t, k)
			}
			code, out := r.wait(t)

			if code != tt.code {
				t.Errorf("exit status %d, want %d; terminal:\n%s", code, tt.code, out)
			}
			if got := exists(t, target); got != tt.ran {
				t.Errorf("the command's file exists: %v, want %v", got, tt.ran)
			}
			checkFrame(t, out, []*regexp.Regexp{
				frameLine("command:", "touch made"),
				frameLine("cwd:", f.ws),
				frameLine("profile:", "workspace-write"),
				frameLine("decision:", "prompt"),
				regexp.MustCompile(`(?m)^\| reason: +rule: .*touch.*$`),
				regexp.MustCompile(`(?m)^\| rule: +touch -> prompt \(` + regexp.QuoteMeta(f.rules) + `:1:1\): creates files$`),
			}, []string{"[a] always", "| always:"})
			if !strings.Contains(out, choices) {
				t.Errorf("the prompt does not offer %q:\n%s", choices, out)
			}
			if n := strings.Count(out, lastChoice); n != tt.prompts {
				t.Errorf("the prompt was drawn %d times, want %d:\n%s", n, tt.prompts, out)
			}
			if got := answerShown(out); got != tt.shown {
				t.Errorf("the prompt answered %q, want %q:\n%s", got, tt.shown, out)
			}

			res := readResult(t, result)
			if res.Approval.By != "tty" || res.Approval.Outcome != tt.outcome || !strings.Contains(res.Approval.Reason, tt.reason) {
				t.Errorf("result approval = %+v, want by tty, outcome %s, reason containing %q", res.Approval, tt.outcome, tt.reason)
			}
			if res.Decision != "prompt" || res.Profile != "workspace-write" {
				t.Errorf("result decision %q profile %q, want prompt, workspace-write", res.Decision, res.Profile)
			}
			recs := readAudit(t, f.audit)
			if len(recs) == 0 || recs[0].Approver != "tty" || recs[0].Outcome != tt.outcome ||
				recs[0].Cwd != f.ws || strings.Join(recs[0].Argv, " ") != "touch made" {
				t.Errorf("first audit record %+v, want tty, %s, cwd %s, argv touch made", recs, tt.outcome, f.ws)
			}
			ranRecords := 0
			for _, rec := range recs {
				if rec.Exit != nil {
					ranRecords++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tt.ran]; ranRecords != want {
				t.Errorf("%d audit records with an exit status, want %d: %+v", ranRecords, want, recs)
			}
		})
	}
}

// TestTTYHangup closes the terminal while the prompt waits: that is a
// denial, audited, and nothing runs.
func TestTTYHangup(t *testing.T) {
	f := newGateFixture(t, `prefix_rule(pattern=["touch"], decision="prompt")`+"\n")
	result := filepath.Join(f.dir, "result.json")
	r := startTTY(t, f.env, f.runArgs(result, nil, "touch", "made")...)
	r.waitPrompt(t)
	if err := r.pty.Close(); err != nil {
		t.Fatal(err)
	}
	code, out := r.wait(t)
	if code != 77 {
		t.Errorf("exit status %d (%v) after the terminal closed, want 77; terminal:\n%s", code, r.cmd.ProcessState, out)
	}
	if exists(t, filepath.Join(f.ws, "made")) {
		t.Error("the command ran after the terminal closed")
	}
	if res := readResult(t, result); res.Approval.By != "tty" || res.Approval.Outcome != "denied" {
		t.Errorf("result approval %+v after hang-up, want denied by tty", res.Approval)
	}
	recs := readAudit(t, f.audit)
	if len(recs) != 1 || recs[0].Outcome != "denied" || recs[0].Exit != nil {
		t.Errorf("audit after hang-up: %+v, want one denied record without an exit status", recs)
	}
}

// TestTTYSignal sends SIGTERM and SIGINT to gatedexec while the prompt
// waits: the prompt ends at once as an abort (77), nothing runs, and the
// terminal is back in its own mode (issue 11 item 7: the signal waited
// for a key press, which it then swallowed).
func TestTTYSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			f := newGateFixture(t, `prefix_rule(pattern=["touch"], decision="prompt")`+"\n")
			result := filepath.Join(f.dir, "result.json")
			r := startTTY(t, f.env, f.runArgs(result, nil, "touch", "made")...)
			r.waitPrompt(t)
			if err := r.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// No key is typed: waiting for the exit is the test.
			code, out := r.wait(t)
			if code != 77 {
				t.Errorf("exit status %d after %v, want 77; terminal:\n%s", code, sig, out)
			}
			if exists(t, filepath.Join(f.ws, "made")) {
				t.Errorf("the command ran after %v", sig)
			}
			if res := readResult(t, result); res.Approval.Outcome != "abort" {
				t.Errorf("approval %+v after %v, want abort", res.Approval, sig)
			}
			// A new pty is in canonical mode with echo; the prompt's raw
			// mode must not outlive it.
			if cooked, err := cookedMode(r.pty); err != nil {
				t.Errorf("terminal mode: %v", err)
			} else if !cooked {
				t.Error("terminal left in raw mode")
			}
		})
	}
}

// TestTTYSession approves "for this session" once; a second run with the
// same --session runs without prompting, one with another session asks.
func TestTTYSession(t *testing.T) {
	f := newGateFixture(t, `prefix_rule(pattern=["touch"], decision="prompt")`+"\n")
	target := filepath.Join(f.ws, "made")
	session := []string{"--session", "s1"}

	first := filepath.Join(f.dir, "first.json")
	r := startTTY(t, f.env, f.runArgs(first, session, "touch", "made")...)
	r.waitPrompt(t)
	r.send(t, "s")
	if code, out := r.wait(t); code != 0 || answerShown(out) != "session" {
		t.Fatalf("session approval: exit %d, answer %q; terminal:\n%s", code, answerShown(out), out)
	}
	if !exists(t, target) {
		t.Fatal("the session-approved command did not run")
	}
	data, err := os.ReadFile(filepath.Join(f.session, "s1.json"))
	if err != nil {
		t.Fatalf("session file: %v", err)
	}
	if !strings.Contains(string(data), `"touch"`) || !strings.Contains(string(data), `"made"`) || !strings.Contains(string(data), f.ws) {
		t.Errorf("session file does not record touch made in %s:\n%s", f.ws, data)
	}
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}

	second := filepath.Join(f.dir, "second.json")
	r = startTTY(t, f.env, f.runArgs(second, session, "touch", "made")...)
	code, out := r.wait(t)
	if code != 0 || strings.Contains(out, "approve command?") {
		t.Errorf("second run in the session: exit %d, want 0 without a prompt; terminal:\n%s", code, out)
	}
	if !exists(t, target) {
		t.Error("the second run in the session did not run the command")
	}
	if res := readResult(t, second); res.Approval.By != "session" || res.Approval.Outcome != "approved_for_session" {
		t.Errorf("second run approval %+v, want by session, approved_for_session", res.Approval)
	}

	// Another session is asked again; denying leaves the file alone.
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	r = startTTY(t, f.env, f.runArgs(filepath.Join(f.dir, "third.json"), []string{"--session", "s2"}, "touch", "made")...)
	r.waitPrompt(t)
	r.send(t, "n")
	if code, out := r.wait(t); code != 77 {
		t.Errorf("another session: exit %d, want 77; terminal:\n%s", code, out)
	}
	if exists(t, target) {
		t.Error("a run in another session ran without approval")
	}
}

// TestTTYAlways approves "always": the prompt shows the rule before it is
// written, the rule lands once in the user's rules/default.rules, that file
// loads and allows the command, and later runs do not prompt.
func TestTTYAlways(t *testing.T) {
	// untrusted asks for a command no rule covers; a prompt rule would
	// outrank the written allow rule, so none covers touch here.
	f := newGateFixture(t, `prefix_rule(pattern=["git", "push"], decision="prompt")`+"\n")
	untrusted := []string{"--approval-policy", "untrusted"}
	const rule = `prefix_rule(pattern=["touch"], decision="allow")`
	target := filepath.Join(f.ws, "made")

	result := filepath.Join(f.dir, "first.json")
	r := startTTY(t, f.env, f.runArgs(result, untrusted, "touch", "made")...)
	r.waitPrompt(t)
	shown := screen(r.log.String())
	checkFrame(t, shown, []*regexp.Regexp{
		frameLine("command:", "touch made"),
		frameLine("cwd:", f.ws),
		frameLine("profile:", "workspace-write"),
		frameLine("decision:", "prompt"),
		regexp.MustCompile(`(?m)^\| reason: +unmatched: .*$`),
		frameLine("always:", "appends "+rule),
	}, []string{"| rule:"})
	if want := "[y] once  [a] always  [n] deny  [d] deny and abort"; !strings.Contains(shown, want) {
		t.Errorf("the prompt does not offer %q:\n%s", want, shown)
	}
	if exists(t, f.userRules) {
		t.Fatalf("%s exists before \"always\" was chosen", f.userRules)
	}
	r.send(t, "a")
	code, out := r.wait(t)
	if code != 0 || answerShown(out) != "always" {
		t.Fatalf("always: exit %d, answer %q; terminal:\n%s", code, answerShown(out), out)
	}
	// It says which file it wrote (issue 11 item 19).
	if want := "gatedexec: always: appended " + rule + " to " + f.userRules; !strings.Contains(out, want) {
		t.Errorf("the run does not say %q:\n%s", want, out)
	}
	if !exists(t, target) {
		t.Error("the command approved always did not run")
	}
	if res := readResult(t, result); res.Approval.By != "tty" || res.Approval.Outcome != "approved_always" {
		t.Errorf("approval %+v, want by tty, approved_always", res.Approval)
	}
	checkRuleOnce(t, f.userRules, rule)

	// The file loads on its own and allows the command.
	rulesTest := exec.Command(gatedexecBin, "rules", "test", f.userRules)
	rulesTest.Env = f.env
	if out, err := rulesTest.CombinedOutput(); err != nil {
		t.Errorf("gatedexec rules test %s: %v\n%s", f.userRules, err, out)
	}
	if got := checkDecision(t, f, "-r", f.userRules); got != "allow" {
		t.Errorf("gatedexec check -r %s -- touch made: decision %q, want allow", f.userRules, got)
	}
	// And as the user layer, with nothing given on the command line.
	if got := checkDecision(t, f); got != "allow" {
		t.Errorf("gatedexec check -- touch made with the user layer: decision %q, want allow", got)
	}

	// A second run neither prompts nor writes the rule again.
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(f.dir, "second.json")
	r = startTTY(t, f.env, f.runArgs(second, untrusted, "touch", "made")...)
	code, out = r.wait(t)
	if code != 0 || strings.Contains(out, "approve command?") {
		t.Errorf("second run: exit %d, want 0 without a prompt; terminal:\n%s", code, out)
	}
	if !exists(t, target) {
		t.Error("the second run did not run the command")
	}
	if res := readResult(t, second); res.Decision != "allow" || res.Approval.By != "rule" {
		t.Errorf("second run: decision %q approval %+v, want allow by rule", res.Decision, res.Approval)
	}
	checkRuleOnce(t, f.userRules, rule)
}

// checkRuleOnce asserts that the rules file at path holds rule as exactly
// one line.
func checkRuleOnce(t *testing.T, path, rule string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("user rules file: %v", err)
	}
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == rule {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%s holds %s %d times, want once:\n%s", path, rule, n, data)
	}
}

// checkDecision runs `gatedexec check [args] -- touch made` in the
// fixture's workspace and returns the decision it prints.
func checkDecision(t *testing.T, f gateFixture, args ...string) string {
	t.Helper()
	return checkArgv(t, f.env, f.ws, args, "touch", "made")
}

// checkArgv runs `gatedexec check [args] -- argv` in dir and returns the
// decision it prints.
func checkArgv(t *testing.T, env []string, dir string, args []string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(gatedexecBin, append(append(append([]string{"check"}, args...), "--"), argv...)...)
	cmd.Env, cmd.Dir = env, dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gatedexec check %q: %v\n%s", argv, err, stderr.Bytes())
	}
	var v struct {
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("gatedexec check output: %v\n%s", err, out)
	}
	return v.Decision
}
