//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/plainfile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// direct reports whether spec asks the helper for nothing a plain fork and
// exec cannot do: an unrestricted profile (no Landlock, seccomp,
// namespaces, rlimits, capabilities or descriptors to close) off a pty.
// Such a command is started without the helper, saving its exec.
func direct(p *sandbox.Profile, spec *helperSpec) bool {
	return p.Unrestricted && spec.Ctty == 0 && spec.Unshare == 0 && len(spec.Mounts) == 0 &&
		len(spec.Rlimits) == 0 && !spec.CloseFDs && !spec.DropCaps && !spec.Landlock && len(spec.BPF) == 0 &&
		len(spec.Reopen) == 0 && !spec.Dev && !spec.LoopbackUp && len(spec.Egress) == 0
}

// startDirect runs spec's command as the helper would exec it, in its
// session (or group), with no_new_privs, dying with gatedexec, in the
// run's cgroup when cgs has one (treeCgroup), which ends with the run what
// left its group. Go cannot
// set no_new_privs for a child alone, and the flag is a thread's: it is
// set on a thread locked for this run, which forks the command and is
// never unlocked, so that it ends with the run and no other goroutine
// ever runs on it with the flag (the main thread, which cannot end, is
// parked for good instead).
func (r *Runner) startDirect(ctx context.Context, c *Command, p *sandbox.Profile, spec *helperSpec, io3 *stdio, tail *sandbox.TailBuffer, cgs *pendingCgroups) (*sandbox.Result, error) {
	env := spec.Env
	if env == nil {
		env = []string{} // nil would be gatedexec's own environment
	}
	inherited, err := inheritedFiles()
	if err != nil {
		io3.close()
		return nil, err
	}
	defer closeAll(inherited)
	cmd := &exec.Cmd{
		Path: spec.Path, Args: spec.Argv, Env: env, Dir: spec.Dir,
		Stdin: io3.stdin, Stdout: io3.stdout, Stderr: io3.stderr,
		ExtraFiles:  inherited,
		SysProcAttr: &syscall.SysProcAttr{Setsid: !p.NoSetsid, Setpgid: p.NoSetsid, Pdeathsig: syscall.SIGKILL},
	}
	sup := &sandbox.Supervisor{Timeout: p.Limits.Timeout, ForwardSignals: c.ForwardSignals, Watch: c.Signals}
	if c.ForwardSignals && onTerminal() {
		sup.Job = &termJob{io3: io3}
	}
	type outcome struct {
		timedOut, started bool
		err               error
	}
	done := make(chan outcome, 1)
	var begin time.Time
	cg := cgs.wait()
	if cg != nil {
		sup.KillTree = cg.killAll
	}
	go func() {
		runtime.LockOSThread() // not unlocked: see above
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			done <- outcome{err: fmt.Errorf("sandbox: no_new_privs: %w", err)}
			return
		}
		started := false
		timedOut, err := sup.Run(ctx, cmd, func() error {
			begin = time.Now()
			err := cg.fork(func(add func(int) error) error {
				if err := cmd.Start(); err != nil {
					return err
				}
				if add != nil {
					// Best effort: the cgroup only ends what left the
					// process group, at the run's end.
					add(cmd.Process.Pid)
				}
				return nil
			})
			if err != nil {
				return err
			}
			started = true
			io3.started()
			return nil
		})
		done <- outcome{timedOut: timedOut, started: started, err: err}
	}()
	o := <-done
	if !o.started {
		io3.close()
		return startError(spec.Argv[0], o.err)
	}
	io3.finish()
	if o.err != nil {
		return nil, o.err
	}
	res := &sandbox.Result{Duration: time.Since(begin), TimedOut: o.timedOut, StderrTail: tail.Bytes()}
	if cg != nil {
		res.Layers = cg.layers
	}
	res.ExitCode, res.Signal = sandbox.ExitStatus(cmd.ProcessState)
	return res, nil
}

// startError is what the helper reports for an exec that failed: 127 and
// ErrNotFound for a program that is not there, 126 and ErrCannotExec for
// one that cannot run; anything else is gatedexec's failure. name is the
// program's.
func startError(name string, err error) (*sandbox.Result, error) {
	var pe *fs.PathError
	var errno syscall.Errno
	switch {
	case err == nil:
		return nil, errors.New("sandbox: command did not start")
	case errors.As(err, &pe) && pe.Op == "chdir":
		return nil, fmt.Errorf("sandbox: %w", err)
	case !errors.As(err, &errno):
		return nil, fmt.Errorf("sandbox: starting %s: %w", name, err)
	case errno == syscall.ENOENT || errno == syscall.ENOTDIR:
		return &sandbox.Result{ExitCode: 127}, fmt.Errorf("%s: %s: %w", name, errno, sandbox.ErrNotFound)
	default:
		return &sandbox.Result{ExitCode: 126}, fmt.Errorf("%s: %s: %w", name, errno, sandbox.ErrCannotExec)
	}
}

// inheritedFiles returns, for ExtraFiles, the descriptors above stderr
// this process was given by its caller (those not close-on-exec: every
// one gatedexec opens is), each at its own number and nil between them:
// an unrestricted command gets what its caller left open, as it would
// running without gatedexec. Left to inheritance alone they were not
// sure to arrive: os/exec moves its own descriptors in the child through
// the first numbers above those it passes, and overwrote an inherited
// one there (fd 9 of a caller whose 3 to 8 were closed, one run in 40).
// The files are duplicates, for the caller to close.
func inheritedFiles() ([]*os.File, error) {
	dir, err := plainfile.Open("/proc/self/fd", unix.O_DIRECTORY)
	if err != nil {
		return nil, fmt.Errorf("sandbox: listing inherited descriptors: %w", err)
	}
	names, err := dir.Readdirnames(-1)
	self := int(dir.Fd())
	dir.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: listing inherited descriptors: %w", err)
	}
	var files []*os.File
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 || fd == self {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // closed since, or gatedexec's own
		}
		dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			closeAll(files)
			return nil, fmt.Errorf("sandbox: inherited descriptor %d: %w", fd, err)
		}
		for len(files) <= fd-3 {
			files = append(files, nil)
		}
		files[fd-3] = os.NewFile(uintptr(dup), "inherited-"+name)
	}
	return files, nil
}
