//go:build linux || darwin

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/internal/sigpipe"
)

// shell returns sh running script in a process group of its own.
func shell(script string, out *bytes.Buffer) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdout = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func TestSupervisorEnds(t *testing.T) {
	for _, tt := range []struct {
		name     string
		script   string
		timeout  time.Duration
		cancel   bool
		code     int
		signal   syscall.Signal
		timedOut bool
		out      string
	}{
		// SIGTERM first; one that ignores it gets SIGKILL after the grace.
		{name: "timeout, TERM taken", script: "sleep 30", timeout: 50 * time.Millisecond,
			code: 128 + 15, signal: syscall.SIGTERM, timedOut: true},
		{name: "timeout, TERM ignored", script: "trap 'echo term' TERM; echo ready; while :; do sleep 0.05; done",
			timeout: 200 * time.Millisecond, code: 128 + 9, signal: syscall.SIGKILL, timedOut: true, out: "ready\nterm\n"},
		{name: "timeout, TERM handled", script: "trap 'echo term; exit 7' TERM; while :; do sleep 0.05; done",
			timeout: 50 * time.Millisecond, code: 7, timedOut: true, out: "term\n"},
		// The caller's context ends the command the same way, and it is
		// not a timeout.
		{name: "context", script: "trap 'echo term; exit 8' TERM; while :; do sleep 0.05; done", cancel: true,
			code: 8, out: "term\n"},
		{name: "exit", script: "exit 3", code: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := shell(tt.script, &out)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			s := &Supervisor{Timeout: tt.timeout, Grace: 500 * time.Millisecond}
			timedOut, err := s.Run(ctx, cmd, nil)
			if err != nil {
				t.Fatal(err)
			}
			code, sig := ExitStatus(cmd.ProcessState)
			if code != tt.code || sig != int(tt.signal) || timedOut != tt.timedOut || out.String() != tt.out {
				t.Errorf("exit %d signal %d timed out %v output %q; want %d %d %v %q",
					code, sig, timedOut, out.String(), tt.code, tt.signal, tt.timedOut, tt.out)
			}
		})
	}
}

// TestSupervisorKillsOrphans: what the command leaves in its group goes
// with it, and output they hold open does not keep Run waiting.
func TestSupervisorKillsOrphans(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	var out bytes.Buffer
	cmd := shell("sleep 60 & echo $! > "+pidFile+"; echo started", &out)
	cmd.WaitDelay = 30 * time.Second // only the group's kill can end the wait in time
	begin := time.Now()
	if _, err := (&Supervisor{}).Run(context.Background(), cmd, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > 20*time.Second {
		t.Errorf("Run waited %v for the orphan's output", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; alive(pid); i++ {
		if i == 500 {
			t.Fatalf("orphan %d still alive after the command exited", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if out.String() != "started\n" {
		t.Errorf("output %q", out.String())
	}
}

func TestSupervisorForwardsSignals(t *testing.T) {
	var out bytes.Buffer
	// The command signals gatedexec (its parent); the signal comes back.
	cmd := shell("trap 'echo hup; exit 5' HUP; kill -HUP $PPID; while :; do sleep 0.05; done", &out)
	s := &Supervisor{ForwardSignals: true, Timeout: 20 * time.Second}
	timedOut, err := s.Run(context.Background(), cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := ExitStatus(cmd.ProcessState); code != 5 || timedOut || out.String() != "hup\n" {
		t.Errorf("exit %d, timed out %v, output %q; want 5, false, \"hup\\n\"", code, timedOut, out.String())
	}
}

func TestSupervisorNeedsProcessGroup(t *testing.T) {
	cmd := exec.Command("/bin/true")
	started := false
	_, err := (&Supervisor{}).Run(context.Background(), cmd, func() error { started = true; return nil })
	if err == nil || started {
		t.Errorf("a command in the caller's group: err %v, started %v; want a refusal before the start", err, started)
	}
	cmd = shell("exit 0", &bytes.Buffer{})
	want := errors.New("cannot start")
	if _, err := (&Supervisor{}).Run(context.Background(), cmd, func() error { return want }); err != want {
		t.Errorf("start error: got %v", err)
	}
}

// alive reports whether pid runs: a zombie (killed, not reaped yet by an
// init that may be slow to, in a container) does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (macOS): only kill says
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(after, "Z")
}

// TestSupervisorWatch: a signal that arrives after the CLI's watch is
// subscribed but before the command starts neither ends this process
// nor is lost: the command gets it once started. And the supervisor
// leaves the watch subscribed.
func TestSupervisorWatch(t *testing.T) {
	w := testWatch()
	c := w.wait()
	drainSignals(c)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// Delivered to the watch, not acted on by anyone yet.
	deadline := time.Now().Add(5 * time.Second)
	for len(c) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if len(c) == 0 {
		t.Fatal("SIGINT did not reach the watch")
	}
	// sleep itself, not a shell running it: a signal that reaches dash
	// while it starts is deferred and then dropped, and the sleep it
	// forks next never sees it (1 run in ~40 under load).
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s := &Supervisor{ForwardSignals: true, Watch: w, Grace: 500 * time.Millisecond}
	begin := time.Now()
	if _, err := s.Run(context.Background(), cmd, nil); err != nil {
		t.Fatal(err)
	}
	if code, sig := ExitStatus(cmd.ProcessState); sig != int(syscall.SIGINT) {
		t.Errorf("command ended with %d (signal %d), want SIGINT, forwarded from before its start", code, sig)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("the command ran %v: the early signal was lost", d)
	}
	// Still subscribed: another SIGINT comes to the watch again.
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-c:
	case <-time.After(5 * time.Second):
		t.Fatal("the supervisor unsubscribed the caller's watch")
	}
}

// testWatch is the one watch of this test process, as a CLI has one.
var testWatch = sync.OnceValue(WatchSignals)

// drainSignals empties c of what other tests' signals left there: a
// watch is never stopped.
func drainSignals(c chan os.Signal) {
	for len(c) > 0 {
		<-c
	}
}

// TestSignalWatchNotify: another subscription through the watch gets the
// signals it asked for beside the watch, and none once stopped.
func TestSignalWatchNotify(t *testing.T) {
	w := testWatch()
	c := w.wait()
	drainSignals(c)
	// want wants sig on c within 5s; sendSelf sends it to this process
	// first.
	want := func(sig syscall.Signal, c chan os.Signal, what string) {
		t.Helper()
		select {
		case got := <-c:
			if got != sig {
				t.Errorf("%s got %v, want %v", what, got, sig)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%v did not reach %s", sig, what)
		}
	}
	sendSelf := func(sig syscall.Signal, c chan os.Signal, what string) {
		t.Helper()
		syscall.Kill(os.Getpid(), sig)
		want(sig, c, what)
	}
	tap := make(chan os.Signal, 1)
	w.Notify(tap, syscall.SIGHUP)
	sendSelf(syscall.SIGHUP, c, "the watch")
	want(syscall.SIGHUP, tap, "the tap")
	// Not asked for: SIGTERM reaches the watch only.
	sendSelf(syscall.SIGTERM, c, "the watch")
	if len(tap) != 0 {
		t.Errorf("the tap got %v, which it did not ask for", <-tap)
	}
	w.Stop(tap)
	if !sigpipe.Own {
		return // os/signal stops it in the background
	}
	sendSelf(syscall.SIGHUP, c, "the watch")
	if len(tap) != 0 {
		t.Error("the tap got a signal after Stop")
	}
}

// endingProcess is a Process that says its command has ended (WaitEnd)
// when told so on said, while it runs on.
type endingProcess struct {
	cmd  *exec.Cmd
	said chan bool
}

func (p *endingProcess) Pid() int      { return p.cmd.Process.Pid }
func (p *endingProcess) WaitEnd() bool { return <-p.said }

func (p *endingProcess) Wait() error {
	if err := p.cmd.Wait(); p.cmd.ProcessState == nil {
		return err
	}
	return nil // exited: its status is the command's
}

// TestSupervisorEndReporter: RunProcess takes the word of a process that
// says its command has ended, and leaves it running and unreaped; one
// that does not say so is waited for and reaped as any other.
func TestSupervisorEndReporter(t *testing.T) {
	for _, said := range []bool{true, false} {
		t.Run(fmt.Sprintf("said=%v", said), func(t *testing.T) {
			script := "sleep 0.2; exit 4"
			if said {
				script = "exec sleep 60"
			}
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			p := &endingProcess{cmd: cmd, said: make(chan bool, 1)}
			p.said <- said
			done := make(chan error, 1)
			go func() {
				_, err := (&Supervisor{}).RunProcess(context.Background(), p, func() error { return nil })
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("RunProcess did not return")
			}
			if said {
				if cmd.ProcessState != nil || syscall.Kill(cmd.Process.Pid, 0) != nil {
					t.Error("the process that said its command ended was killed or reaped")
				}
				return
			}
			if cmd.ProcessState == nil {
				t.Fatal("the process that exited without a word was not reaped")
			}
			if code, _ := ExitStatus(cmd.ProcessState); code != 4 {
				t.Errorf("exit code %d, want 4", code)
			}
		})
	}
}
