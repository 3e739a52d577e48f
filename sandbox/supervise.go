//go:build linux || darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/gatedexec/gatedexec/internal/sigpipe"
)

// KillGrace is how long a process group ended by a timeout or by its
// caller's context has between SIGTERM and SIGKILL.
const KillGrace = 2 * time.Second

// OutputWait bounds the wait for output still held open by a process
// outside the group once the command has exited (exec.Cmd.WaitDelay).
const OutputWait = time.Second

// JobControl is what a backend does for job control of a command run on
// a terminal: the supervisor calls it from the goroutine that runs it.
type JobControl interface {
	// Stopped is called when the command stopped (Ctrl-Z on its pty):
	// it stops gatedexec the way a job stops and returns once gatedexec
	// is continued; the supervisor then continues the group.
	Stopped()
	// Suspend is called on a SIGTSTP sent to gatedexec: it stops the
	// command, whose stop then comes back through Stopped.
	Suspend(pgid int)
	// Resume is called on a SIGCONT that was not the supervisor's own,
	// before the group is continued.
	Resume()
	// Resize is called on SIGWINCH.
	Resize()
}

// Supervisor runs one command as the leader of a process group of its
// own and takes its whole group down with it: the same timeout, kill
// order and output wait on every backend.
type Supervisor struct {
	// Timeout, when positive, ends the group with SIGTERM, then SIGKILL
	// after Grace; the result then says it timed out.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero is KillGrace.
	Grace time.Duration
	// ForwardSignals passes SIGINT, SIGTERM, SIGHUP and SIGQUIT received
	// by this process on to the group (a CLI standing in for its command); a library caller
	// leaves it off and ends the command through the context.
	ForwardSignals bool
	// Job, when set with ForwardSignals, gets the job-control signals
	// (SIGTSTP, SIGCONT, SIGWINCH) and the command's stops. Without it a
	// stopped command is continued at once: no terminal waits for it.
	Job JobControl
	// Watch, when set with ForwardSignals, is where the forwarded
	// signals come from: a subscription the caller made earlier
	// (WatchSignals), which Run waits for before the start and leaves
	// subscribed. Without it Run subscribes, and unsubscribes, itself.
	Watch *SignalWatch
	// KillTree, when set, ends what the command left outside its group
	// (a setsid child), once the command has exited and its group is
	// killed: a backend without a PID namespace for the run sets it.
	KillTree func()
}

// forwarded are the signals a supervisor passes on to its command's
// group; jobSignals those it handles for job control on a terminal.
var (
	forwarded  = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
	jobSignals = []os.Signal{syscall.SIGTSTP, syscall.SIGCONT, syscall.SIGWINCH}
)

// SignalWatch is a subscription to the signals a supervised command is
// forwarded (SIGINT, SIGTERM, SIGHUP, SIGQUIT), made by a CLI at its
// start. A signal that arrives before the command starts waits in the
// watch and is forwarded once the command has started, where before a
// subscription it would have ended gatedexec, and after an approval it
// was lost. A watch is never stopped: the CLI exits after its command.
//
// Where it can, the watch takes the signals with a handler of its own
// (internal/sigpipe): os/signal enables each signal with a round trip to
// a goroutine locked to a thread the runtime starts for it, which cost a
// sandboxed /bin/true 0.12–0.21 ms here (forwarding off against on) even
// made in the background while the CLI reads its configuration (2 ms,
// 6%, on a slow VM before it was). The CLI's other subscriptions to
// those signals go through the watch (Notify, Stop), since os/signal no
// longer sees them.
type SignalWatch struct {
	c     chan os.Signal
	ready chan struct{}
}

// WatchSignals starts a new watch: at once where sigpipe takes the
// signals, in the background where os/signal does.
func WatchSignals() *SignalWatch {
	w := &SignalWatch{c: make(chan os.Signal, 4), ready: make(chan struct{})}
	subscribe := func() {
		notify(w.c, forwarded...)
		close(w.ready)
	}
	if sigpipe.Own {
		subscribe()
	} else {
		go subscribe()
	}
	return w
}

// Notify sends c the signals of sigs, as signal.Notify does, beside the
// watch: a CLI's other subscription to them (an approval that a signal
// ends) goes through it.
func (w *SignalWatch) Notify(c chan<- os.Signal, sigs ...os.Signal) { notify(c, sigs...) }

// Stop ends what Notify started for c: at once where sigpipe takes the
// signals; in the background where os/signal does, which disables each
// with a round trip to a runtime thread (c may get one meanwhile).
func (w *SignalWatch) Stop(c chan<- os.Signal) { stopNotify(c) }

// wait returns the watch's channel once it is subscribed.
func (w *SignalWatch) wait() chan os.Signal {
	<-w.ready
	return w.c
}

// stopNotify ends notify's subscription of c: at once through sigpipe,
// in the background through os/signal.
func stopNotify(c chan<- os.Signal) {
	if sigpipe.Own {
		sigpipe.Stop(c)
		return
	}
	go signal.Stop(c)
}

// notify subscribes c to sigs through sigpipe, or os/signal where sigpipe
// cannot take them (it then changed nothing).
func notify(c chan<- os.Signal, sigs ...os.Signal) {
	nums := make([]syscall.Signal, 0, len(sigs))
	for _, s := range sigs {
		if n, ok := s.(syscall.Signal); ok {
			nums = append(nums, n)
		}
	}
	if len(nums) == len(sigs) && sigpipe.Notify(c, nums...) == nil {
		return
	}
	signal.Notify(c, sigs...)
}

// Process is a command already started, with a process group of its own,
// as RunProcess supervises it.
type Process interface {
	// Pid returns its process id, which is its group's too.
	Pid() int
	// Wait reaps it once it has exited; the error is only for one that
	// could not be waited for.
	Wait() error
}

// EndReporter is a Process that can tell that its command has ended, and
// that nothing of it is left, before it has exited itself: the sandbox
// helper that is its PID namespace's init reaps every process there
// first, then says so, and its own exit (its memory unmapped, its
// namespaces dropped) is left off the run's path.
type EndReporter interface {
	// WaitEnd blocks until the process has said its command has ended
	// (true), or has exited without saying so (false). It is not reaped
	// then.
	WaitEnd() bool
}

// Run starts cmd with start (cmd.Start when nil) and waits until the
// command has exited and its group is gone. cmd must make its own
// process group (Setsid or Setpgid), since the group is what is signalled.
// A context that ends sends SIGTERM, then SIGKILL after the grace; the
// command's exit kills whatever it left in its group (no orphans). err
// is only for a command that could not be started or waited for: its
// exit status, and output cut off after OutputWait, are the command's.
//
// A child started with Pdeathsig dies when the thread that forked it
// ends, not the process (golang/go#27505): Run keeps its goroutine on
// that thread until the child is gone when start forks it. A cmd started
// before Run is its starter's to keep so.
func (s *Supervisor) Run(ctx context.Context, cmd *exec.Cmd, start func() error) (timedOut bool, err error) {
	if a := cmd.SysProcAttr; a == nil || !(a.Setsid || a.Setpgid && a.Pgid == 0) {
		return false, errors.New("sandbox: supervised command needs a process group of its own")
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = OutputWait
	}
	if start == nil {
		start = cmd.Start
	}
	// A command started before Run (a prestarted helper) was forked by a
	// thread its starter kept: locking this one would only make every
	// wake of this goroutine a handoff between threads (one fewer thread,
	// and 0.05 ms of a sandboxed /bin/true, alternated builds).
	pin := pinsThread(cmd) && cmd.Process == nil
	return s.run(ctx, start, pin, func() int { return cmd.Process.Pid }, nil, func() error {
		err := cmd.Wait()
		if cmd.ProcessState != nil {
			return nil // exited: its status is the command's
		}
		return err
	})
}

// RunProcess supervises p as Run does a command, for a process started
// before (by a thread its starter keeps, when it has a death signal):
// start is what lets it go on, called once the signals are watched.
func (s *Supervisor) RunProcess(ctx context.Context, p Process, start func() error) (timedOut bool, err error) {
	var ended func() bool
	if e, ok := p.(EndReporter); ok {
		ended = e.WaitEnd
	}
	return s.run(ctx, start, false, p.Pid, ended, p.Wait)
}

// run is Run and RunProcess once the command is known: start starts it
// (pin keeps this goroutine on its thread until the command is gone, for
// the death signal of what start forks), pid returns its id after, ended,
// when set, waits until it says its command has ended (EndReporter), and
// wait reaps it.
func (s *Supervisor) run(ctx context.Context, start func() error, pin bool, pid func() int, ended func() bool, wait func() error) (timedOut bool, err error) {
	grace := s.Grace
	if grace <= 0 {
		grace = KillGrace
	}
	var sigs, jobSigs chan os.Signal
	job := s.Job
	// Run's own subscriptions are stopped in the background where they
	// go through os/signal (stopNotify): the runtime disables each signal
	// with a round trip to a thread of its own, and a CLI exits
	// meanwhile. One that comes in between goes to its channel, unread,
	// as one after the group ended did before.
	subscribe := func(list []os.Signal) chan os.Signal {
		c := make(chan os.Signal, 4)
		notify(c, list...)
		return c
	}
	switch {
	case !s.ForwardSignals:
		job = nil
	case s.Watch != nil:
		sigs = s.Watch.wait()
	default:
		sigs = subscribe(forwarded)
		defer stopNotify(sigs)
	}
	if job != nil {
		jobSigs = subscribe(jobSignals)
		defer stopNotify(jobSigs)
	}
	// Watched before the start: a signal in between is the command's too.
	// Locked after the subscription: through os/signal its first call
	// starts a thread of the runtime's own, which from a locked thread is
	// made through the runtime's template thread, one more thread and
	// handoff.
	if pin {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	if err := start(); err != nil {
		return false, err
	}
	pgid := pid()
	var timeout <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	var waitErr error
	go func() {
		// Its stops go unseen then: it stops only when stopped from
		// outside, and continues when continued.
		if ended != nil && ended() {
			// Nothing of the command is left, and the group is the
			// process alone, which ends by itself.
			close(done)
			return
		}
		// The group is killed while the exited command is not reaped
		// yet, so its id still names this group and no one else's, and
		// before wait waits for the output those processes may hold
		// open.
		for waitEvent(pgid) == eventStopped {
			stopped <- struct{}{}
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
		if s.KillTree != nil {
			// Before the wait for output, which such a process may
			// hold open.
			s.KillTree()
		}
		waitErr = wait()
		close(done)
	}()
	var kill <-chan time.Time
	end := func() {
		syscall.Kill(-pgid, syscall.SIGTERM)
		kill = time.After(grace)
	}
	// The job-control signals come only with a Job.
	forward := func(sig os.Signal) {
		switch sig {
		case syscall.SIGTSTP:
			job.Suspend(pgid)
		case syscall.SIGCONT:
			job.Resume()
			syscall.Kill(-pgid, syscall.SIGCONT)
		case syscall.SIGWINCH:
			job.Resize()
		default:
			syscall.Kill(-pgid, sig.(syscall.Signal))
		}
	}
	for {
		select {
		case <-done:
			if waitErr != nil {
				return timedOut, fmt.Errorf("sandbox: waiting: %w", waitErr)
			}
			return timedOut, nil
		case <-stopped:
			if job != nil {
				job.Stopped()
			}
			syscall.Kill(-pgid, syscall.SIGCONT)
		case sig := <-jobSigs:
			forward(sig)
		case sig := <-sigs:
			forward(sig)
		case <-ctx.Done():
			ctx = context.Background()
			end()
		case <-timeout:
			timedOut = true
			timeout = nil
			end()
		case <-kill:
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
}

// ExitStatus returns a finished command's exit code, 128+N when signal
// N killed it, and that signal (0 when it exited).
func ExitStatus(ps *os.ProcessState) (code, sig int) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return ps.ExitCode(), 0
	}
	return WaitExitStatus(ws)
}

// WaitExitStatus is ExitStatus of a finished process's wait status.
func WaitExitStatus(ws syscall.WaitStatus) (code, sig int) {
	if ws.Signaled() {
		return 128 + int(ws.Signal()), int(ws.Signal())
	}
	return ws.ExitStatus(), 0
}

// event is what waitEvent saw of a child.
type event int

const (
	eventExited event = iota
	eventStopped
)
