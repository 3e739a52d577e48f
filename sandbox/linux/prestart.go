//go:build linux

package linux

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/spawnexec"
	"github.com/gatedexec/gatedexec/sandbox"
)

// A LongLived Runner starts the helper of its next run ahead of it. Most
// of a sandboxed start that is not the command itself is the helper's:
// its fork and exec, then unshare(2), whose network namespace alone costs
// 0.3 ms on a 6.18 kernel (a C program, median of 300). Started once a
// run has ended, while nobody calls or while the engine judges and plans
// the next call, the helper makes its namespaces, in the cgroups that run
// is to have, its private mount tree and /dev (which every such run's spec
// asks for, and gets before its own mounts), has its PID namespace's init
// ready, which mounts its /proc, and waits on a unix socket for its
// standard descriptors, the Landlock ruleset and its spec (helper_linux.h,
// GX_PRESTART_ARG), which must ask for the namespaces it made. As root
// the helper is forked into its PID namespace and is that init itself
// (prestartAttr); in a user namespace it forks the init.
//
// One helper waits at a time, for the namespaces and cgroup limits of the
// run before it: a run that wants others, a terminal or a stdin that is
// not a file starts its helper as a one-shot run does, and the helper
// waiting is ended. A run through the egress proxy sends the helper its
// end of the proxy's socket with its standard descriptors: the helper
// sets the namespace's routes and listeners up once its spec has come.
//
// A one-shot run (a Runner that is not LongLived) that a prestarted
// helper can serve starts its own that way, first (startAhead): the
// helper's exec, namespaces and init then overlap the git scan and the
// run's plan instead of following them (0.3-0.4 ms of a sandboxed
// /bin/true). Its cgroups are kept ones (claimKeptCgroups), given back
// after the run; its mount namespace, which the helper hands to the
// runner's end of the socket, goes when that end is closed: at the run's
// end, or at the process's exit (Runner.LeaveToExit).
//
// The cgroups a prestarted helper's run had are kept, once empty, for the
// next helper started for the same limits: making a run's memory and
// pids cgroups and removing them after it cost a warm call 0.15-0.3 ms
// (the MCP benchmark, alternated builds), work the kernel does again for
// an identical pair. The limits are the same and nothing of the run is left
// in them (see spareCgroups); what the run's page cache is still charged
// to the memory cgroup is reclaimed under its limit as any cache is.

// prestartKey is what a prestarted helper was made with.
type prestartKey struct {
	unshare uint32
	// keptNet says the helper may join a kept network namespace
	// (keptnet.go), which only a run allowed one may take.
	keptNet bool
	// limits are the cgroup limits of its run (cgroupLimits), written
	// out (limitsKey).
	limits string
	// bpf is the seccomp program the target of an init (asInit) loads
	// before its run comes, the run's (seccompProgram); "" for none.
	bpf string
}

// prestarted is a helper started ahead of its run.
type prestarted struct {
	key prestartKey
	// spawn is the helper's spawn (spawnexec) until its exec is known
	// to have happened (execed): nil for one forked with its exec.
	spawn *spawnexec.Child
	proc  *proc
	sock  *os.File // the runner's end: descriptors, spec, the go-ahead
	rep   *os.File // the report pipe's read end
	cg    *runCgroups
	// ready is closed once the start is done, err its failure.
	ready chan struct{}
	err   error
	// release ends the goroutine holding the thread that forked the
	// helper, whose end would kill it (Pdeathsig): closed once the
	// helper is reaped.
	release     chan struct{}
	releaseOnce sync.Once
	// taken is set once a run owns the helper (use); endOnce ends one
	// that no run took.
	taken   bool
	endOnce sync.Once
	// mntns is the helper's mount namespace, held from its go-ahead
	// until the run's result is had (holdMountNS).
	mntns *os.File
}

// prestartPool holds the one helper started ahead.
type prestartPool struct {
	mu     sync.Mutex
	next   *prestarted
	closed bool
	// spare are the empty cgroups of a run that has ended, for limits
	// spareLimits (prestartKey.limits), kept for the next helper.
	spare       *runCgroups
	spareLimits string
	// held are the mount namespaces of runs that have ended, closed by
	// the next prestart (before it looks at spare: the tmpfs of a held
	// namespace is still charged to its cgroups) or by Close.
	held []*os.File
	// used counts the runs prestarted helpers served, mountNS those of
	// them whose mount namespace the runner held (holdMountNS).
	used    atomic.Int64
	mountNS atomic.Int64
}

// prestartKeyOf returns the key of a run of c with the namespaces
// unshare, cgroup limits and seccomp program bpf (nil for none), and
// whether a prestarted helper can serve it.
func (r *Runner) prestartKeyOf(c *Command, unshare uint32, limits []cgroupLimit, bpf []byte) (prestartKey, bool) {
	p := c.Profile
	if unshare&unix.CLONE_NEWNS == 0 || p.NoSetsid || p.Unrestricted {
		return prestartKey{}, false
	}
	if !prestartableStdio(c) {
		return prestartKey{}, false
	}
	key := prestartKey{unshare: unshare, keptNet: r.keptNetFor(p, unshare), limits: limitsKey(limits)}
	if asInit(unshare) {
		key.bpf = string(bpf)
	}
	return key, true
}

// prestartableStdio reports whether c's standard descriptors can be given
// to a prestarted helper: files, none of them a terminal.
func prestartableStdio(c *Command) bool {
	if _, ok := c.Stdin.(*os.File); c.Stdin != nil && !ok {
		return false // exec.Cmd would copy it
	}
	for _, s := range []any{c.Stdin, c.Stdout, c.Stderr} {
		if f, ok := s.(*os.File); ok && f != nil && onTerm(f) {
			return false // a pty and job control
		}
	}
	return true
}

// takePrestarted returns the helper waiting for key, once started; nil
// when none waits for key (one for another is ended). The caller owns
// what it gets, and starts the next (refill) once its run has ended.
func (r *Runner) takePrestarted(key prestartKey) *prestarted {
	pool := &r.cache.pool
	pool.mu.Lock()
	pre := pool.next
	pool.next = nil
	pool.mu.Unlock()
	if pre == nil {
		return nil
	}
	<-pre.ready
	if pre.err != nil || pre.key != key || pre.gone() {
		// Not on this run's way: its init outlives it a moment, and its
		// cgroups wait for that.
		r.cache.background.Go(pre.discard)
		return nil
	}
	return pre
}

// gone reports whether the helper has ended while it waited (killed by
// someone), or its init has (which holds the other end of the socket
// once forked): the run it would have failed starts a helper of its own
// instead. The helper is asked too, without reaping it: its init dies
// of the helper's death a moment after it.
func (pre *prestarted) gone() bool {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pre.proc.pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo != 0 {
		return true
	}
	conn, err := pre.sock.SyscallConn()
	if err != nil {
		return true
	}
	hup := true
	conn.Control(func(fd uintptr) {
		// Not POLLIN: the helper's message with its mount namespace
		// (holdMountNS) may wait there.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds, 0)
		hup = err != nil || n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLRDHUP) != 0
	})
	return hup
}

// prestartedCgroups are the cgroups pre was started in, as the run's:
// released, a LongLived Runner keeps them for the next helper
// (keepCgroups); a one-shot run removes them, as its own.
func (r *Runner) prestartedCgroups(pre *prestarted) *pendingCgroups {
	if pre.cg == nil {
		return nil
	}
	a := &pendingCgroups{done: make(chan struct{}), cg: pre.cg}
	if r.LongLived {
		limits := pre.key.limits
		a.background = &r.cache.background
		a.keep = func(cg *runCgroups) bool { return r.keepCgroups(cg, limits) }
	}
	close(a.done)
	return a
}

// keepCgroups keeps cg, the cgroups of a run with limits that has ended,
// for the next prestarted helper, and says whether it did (not once the
// pool is closed). Whether they can serve it is checked then, off the
// run's path (spareCgroups).
func (r *Runner) keepCgroups(cg *runCgroups, limits string) bool {
	pool := &r.cache.pool
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.closed || pool.spare != nil {
		return false
	}
	pool.spare, pool.spareLimits = cg, limits
	return true
}

// closeHeld closes the mount namespaces held past their runs.
func (r *Runner) closeHeld() {
	pool := &r.cache.pool
	pool.mu.Lock()
	held := pool.held
	pool.held = nil
	pool.mu.Unlock()
	for _, f := range held {
		f.Close()
	}
}

// spareCgroups returns the cgroups kept for limits, nil when none are or
// they cannot serve another run (reusable), and are then removed.
func (r *Runner) spareCgroups(limits string) *runCgroups {
	pool := &r.cache.pool
	pool.mu.Lock()
	cg, same := pool.spare, pool.spareLimits == limits
	pool.spare = nil
	pool.mu.Unlock()
	if cg != nil && (!same || !cg.reusable()) {
		// Not in the way of this helper: a task left may take its time.
		r.cache.background.Go(cg.remove)
		return nil
	}
	return cg
}

// refill starts the next helper for key, unless one waits already: the
// next run's, when it wants the same.
func (r *Runner) refill(key prestartKey, limits []cgroupLimit) {
	pool := &r.cache.pool
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.next == nil && !pool.closed {
		pool.next = r.prestart(key, limits)
	}
}

// closePrestarted ends the helper waiting and starts no other.
func (r *Runner) closePrestarted() {
	pool := &r.cache.pool
	pool.mu.Lock()
	pre, spare := pool.next, pool.spare
	pool.next, pool.spare, pool.closed = nil, nil, true
	pool.mu.Unlock()
	r.closeHeld()
	if pre != nil {
		<-pre.ready
		pre.discard()
	}
	if spare != nil {
		spare.remove()
	}
}

// startAhead starts the helper of a one-shot run of key as a prestarted
// one, before the git scan and the run's plan, on the caller's
// goroutine: the helper then makes its namespaces (unshare alone, with a
// network namespace, 0.3 ms) and its PID namespace's init while the
// caller scans and plans, instead of after. The caller's thread is the
// helper's parent (Pdeathsig), as for a helper started with the run: Go
// ends no thread that no goroutine has locked. Nil when it cannot be
// started; the run then starts its helper itself.
func (r *Runner) startAhead(key prestartKey, limits []cgroupLimit, bc sandbox.BuildCache) *prestarted {
	pre := &prestarted{key: key, ready: make(chan struct{}), release: make(chan struct{})}
	pre.err = r.startPrestarted(pre, limits, bc)
	close(pre.ready)
	if pre.err != nil {
		// The run starts its helper itself, and fails as it would
		// have if that fails too.
		return nil
	}
	return pre
}

// prestart starts a helper for key in the background.
func (r *Runner) prestart(key prestartKey, limits []cgroupLimit) *prestarted {
	pre := &prestarted{key: key, ready: make(chan struct{}), release: make(chan struct{})}
	r.cache.background.Go(func() {
		// The helper dies with the thread that forks it: this one,
		// kept until the helper is reaped.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		pre.err = r.startPrestarted(pre, limits, sandbox.BuildCache{})
		close(pre.ready)
		if pre.err == nil {
			<-pre.release
		}
	})
	return pre
}

// startPrestarted forks pre's helper, from its copy in the build cache bc
// when there is one (helperExe). A long-lived Runner keeps its memfd for
// every run and gives none; its helpers start in the background anyway.
// A one-shot run's helper is spawned without waiting for its exec where
// spawnexec can: whether the exec happened is known at use (execed).
func (r *Runner) startPrestarted(pre *prestarted, limits []cgroupLimit, bc sandbox.BuildCache) error {
	exe, self, copied, err := r.helperExe(bc)
	if err != nil {
		return err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: prestart: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "prestart"), os.NewFile(uintptr(fds[1]), "prestart")
	defer theirs.Close()
	// Blocking: the supervisor's goroutine waits in its read for the
	// helper's end (WaitEnd), woken by the write itself rather than
	// through the runtime's poller.
	var rep [2]int
	if err := unix.Pipe2(rep[:], unix.O_CLOEXEC); err != nil {
		mine.Close()
		return fmt.Errorf("sandbox: prestart: %w", err)
	}
	repR, repW := os.NewFile(uintptr(rep[0]), "report"), os.NewFile(uintptr(rep[1]), "report")
	defer repW.Close()
	// Its standard descriptors are /dev/null until its run sends it
	// the run's.
	nullFD, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		mine.Close()
		repR.Close()
		return &os.PathError{Op: "open", Path: os.DevNull, Err: err}
	}
	null := os.NewFile(uintptr(nullFD), os.DevNull)
	defer null.Close()
	args := []string{"gatedexec-sandbox", HelperArg, prestartArg, strconv.FormatUint(uint64(pre.key.unshare), 10)}
	if pre.key.bpf != "" {
		args = append(args, seccompAheadArg)
	}
	extra := helperFiles(theirs, repW, nil, nil, self)
	if pre.key.keptNet {
		// Without the directory the helper makes its own namespace.
		if dir := openKeptNetDir(r.KeptNetNS); dir != nil {
			defer dir.Close()
			args = append(args, keptNetNSArg)
			extra = withFileAt(extra, netnsFD, dir)
		}
	}
	files := append([]*os.File{null, null, null}, extra...)
	r.closeHeld()
	root := os.Geteuid() == 0
	var tasks []*os.File
	defer func() { closeAll(tasks) }()
	claim := func() {
		if pre.cg = r.spareCgroups(pre.key.limits); pre.cg == nil {
			pre.cg = r.newCgroups(r.cgroupHost(), limits)
		}
		if pre.cg != nil {
			tasks = pre.cg.taskFiles()
		}
	}
	// A one-shot run spawns its helper without waiting for its exec
	// (spawnexec): the exec and the PID namespace's making, 0.2 ms, then
	// go on beside the run's planning. Where the helper can move itself
	// into its cgroups (v1 hierarchies, taskFiles), they are claimed
	// after the spawn, the helper waiting for them only once its own
	// namespaces are made.
	async := spawnexec.Supported && !r.LongLived
	late := async && root && !unifiedCgroups()
	if root && !late {
		claim()
	}
	start := func(add func(int) error) error {
		var err error
		if async {
			attr := spawnexec.Attr{Setsid: true, Cloneflags: prestartAttr(pre.key.unshare).Cloneflags}
			argv := args
			if aside, ok := asideNow(); ok {
				// On CPUs of its own, its polling takes no one's turn.
				attr.CPUs = cpuMask(&aside)
				argv = append(args[:len(args):len(args)], spinArg)
			}
			if pre.spawn, err = spawnexec.Start(exe, argv, files, attr); err != nil {
				return err
			}
			pre.proc = &proc{pid: pre.spawn.Pid()}
		} else {
			if pre.proc, err = startProc(exe, args, files, prestartAttr(pre.key.unshare)); err != nil {
				return err
			}
			moveAside(pre.proc.pid)
		}
		if add != nil {
			if err := add(pre.proc.pid); err != nil {
				return err
			}
		}
		if late {
			if claim(); tasks == nil && pre.cg != nil && len(pre.cg.dirs) > 0 {
				// Not for the helper to enter itself after all: moved
				// now, before it forks anything.
				if err := pre.cg.add(pre.proc.pid); err != nil {
					return err
				}
			}
		}
		// In them, or told how to enter them: the helper forks nothing
		// before (its init).
		if err := sendCgroups(mine, tasks); err != nil {
			return err
		}
		return sendAheadProgram(mine, pre.key.bpf)
	}
	if late || tasks != nil {
		// The helper moves itself in (taskFiles).
		err = start(nil)
	} else {
		err = pre.cg.fork(start)
	}
	if err != nil {
		if copied && pre.proc == nil && !async {
			// Not started from the copy (damaged, or refused by a
			// security module): the run's own start takes the memfd. A
			// spawned helper's exec is known only at its use (execed).
			r.dropHelperCopy()
		}
		if pre.proc != nil {
			pre.proc.Kill()
			pre.execed()
			pre.proc.Wait()
		}
		mine.Close()
		repR.Close()
		if pre.cg != nil {
			pre.cg.remove()
		}
		return fmt.Errorf("sandbox: prestarting the helper: %w", err)
	}
	pre.sock, pre.rep = mine, repR
	return nil
}

// sendCgroups tells the prestarted helper at the other end of sock that it
// is in its run's cgroups, or, with tasks, how to enter them.
func sendCgroups(sock *os.File, tasks []*os.File) error {
	fds := make([]int, len(tasks))
	for i, f := range tasks {
		fds[i] = int(f.Fd())
	}
	_, err := sendWithFDs(sock, []byte{prestartCgroups}, fds)
	return err
}

// sendAheadProgram sends the prestarted helper at the other end of sock
// the seccomp program bpf of its run (seccompAheadArg): its length, then
// the program. Nothing for none.
func sendAheadProgram(sock *os.File, bpf string) error {
	if bpf == "" {
		return nil
	}
	msg := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(bpf)), uint32(len(bpf)))
	_, err := sock.Write(append(msg, bpf...))
	return err
}

// sendWithFDs sends msg on sock in one sendmsg with the descriptors fds
// (none: no control message, which an empty SCM_RIGHTS would be), waiting
// while the socket is full, and returns how much of msg went.
func sendWithFDs(sock *os.File, msg []byte, fds []int) (int, error) {
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	conn, err := sock.SyscallConn()
	if err != nil {
		return 0, err
	}
	var (
		sent    int
		sendErr error
	)
	if err := conn.Write(func(fd uintptr) bool {
		sent, sendErr = unix.SendmsgN(int(fd), msg, oob, nil, 0)
		return sendErr != unix.EAGAIN
	}); err != nil {
		return 0, err
	}
	return sent, sendErr
}

// prestartAttr returns the attributes a helper prestarted for the
// namespaces unshare is forked with: its own session, death with the
// forking thread and, for a PID namespace made without a user namespace
// (as root), that namespace, whose init it is then (prestart_as_init,
// helper_linux.c): an init forked by the helper cost a fork before the
// run, and one more exit after it.
func prestartAttr(unshare uint32) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if asInit(unshare) {
		a.Cloneflags = unix.CLONE_NEWPID
	}
	return a
}

// asInit says whether a helper prestarted for namespaces unshare is the
// init of its PID namespace (prestartAttr): such a helper says when its
// run has ended (WaitEnd), and waits for its socket's end to exit.
func asInit(unshare uint32) bool {
	return unshare&unix.CLONE_NEWPID != 0 && unshare&unix.CLONE_NEWNS != 0 && unshare&unix.CLONE_NEWUSER == 0
}

// send hands the helper its standard descriptors (nil is /dev/null), the
// ruleset and the egress socket when there are (nil: none), and its spec,
// calls ready (when not nil), then gives the go-ahead (goAheadByte). The
// helper sets up its mounts meanwhile.
func (pre *prestarted) send(stdio [3]*os.File, ruleset, egress *os.File, spec []byte, ready func()) error {
	// The end of what the runner writes, not a close, follows the
	// go-ahead, or an error without it: a socket closed with the
	// helper's mount namespace still queued in it, unread (a one-shot
	// run, or one that stopped waiting for it, holdMountNS), resets the
	// helper's end, which a helper still reading its spec would report
	// instead of what went wrong. The socket is closed once the helper
	// has ended.
	defer shutdownWrite(pre.sock)
	if len(spec) > maxSpec {
		return fmt.Errorf("sandbox: the helper spec is %d bytes, more than %d", len(spec), maxSpec)
	}
	fds := make([]int, 0, prestartFDs)
	for i, f := range stdio {
		if f == nil {
			flag := os.O_WRONLY
			if i == 0 {
				flag = os.O_RDONLY
			}
			null, err := os.OpenFile(os.DevNull, flag, 0)
			if err != nil {
				return err
			}
			defer null.Close()
			f = null
		}
		fds = append(fds, int(f.Fd()))
	}
	if ruleset != nil {
		fds = append(fds, int(ruleset.Fd()))
	}
	head := byte(0)
	if egress != nil {
		// Last, as the count's bit says.
		fds, head = append(fds, int(egress.Fd())), prestartEgress
	}
	// One message: the count, the descriptors with it, and as much of the
	// spec as the socket takes, so that the helper, woken by it, finds
	// its spec there (a second write woke it once more: 70 µs a run).
	msg := make([]byte, 0, 5+len(spec))
	msg = binary.LittleEndian.AppendUint32(append(msg, head|byte(len(fds))), uint32(len(spec)))
	msg = append(msg, spec...)
	sent, err := sendWithFDs(pre.sock, msg, fds)
	if err != nil {
		return fmt.Errorf("sandbox: sending the helper its descriptors: %w", err)
	}
	// Nothing left: a write of nothing would still fail (EPIPE) once a
	// helper that refused the spec has ended, and hide its report.
	if sent < len(msg) {
		if _, err := pre.sock.Write(msg[sent:]); err != nil {
			return fmt.Errorf("sandbox: writing the helper spec: %w", err)
		}
	}
	if ready != nil {
		ready()
	}
	// A helper that has ended (it refused its spec) takes no go-ahead,
	// and its report, not this write's EPIPE, says why; one that did not
	// get it starts nothing.
	pre.sock.Write([]byte{goAheadByte})
	return nil
}

// use hands pre the run of spec, with the stdio of io3 and the helper's
// end of eg (nil: no egress), for r: nil when pre cannot serve it, and is
// then ended (the run starts its own helper, in pre's cgroups, which are
// the run's). On an error the caller closes io3.
func (pre *prestarted) use(r *Runner, spec *helperSpec, io3 *stdio, ruleset *os.File, eg *egressRun, data []byte) (*helperStart, error) {
	if spec.Unshare != pre.key.unshare {
		pre.end()
		return nil, nil
	}
	if err := pre.execed(); err != nil {
		// Not started from the copy (damaged, or refused by a security
		// module): the run starts its own from the memfd.
		r.dropHelperCopy()
		pre.end()
		return nil, nil
	}
	files, err := prestartStdio(io3)
	if err != nil {
		pre.end()
		if errors.Is(err, errNotPrestartable) {
			err = nil
		}
		return nil, err
	}
	pre.taken = true
	r.cache.pool.used.Add(1)
	if asInit(pre.key.unshare) {
		pre.proc.rep = pre.rep
	}
	reap := func() {
		pre.proc.Kill()
		pre.proc.Wait()
	}
	return &helperStart{
		proc: pre.proc,
		rep:  pre.rep,
		// In the cgroups it was started in.
		start: func(_ *runCgroups, ready func()) error {
			// Only a LongLived Runner has a next run to tear the
			// namespace down behind; a one-shot run leaves the message
			// unread, and the namespace goes with its end of the socket
			// (ended), so that Runner.Close need not be called.
			var mntns *os.File
			var err error
			if r.LongLived {
				mntns, err = pre.holdMountNS(spec.ParentMntNS)
			}
			if err == nil {
				if pre.mntns = mntns; mntns != nil {
					r.cache.pool.mountNS.Add(1)
				}
				err = pre.send(files, ruleset, eg.helperEnd(), data, ready)
			}
			if err != nil {
				reap()
				// One that ended before its spec (its namespaces,
				// its /dev made ahead) said why: that, not the
				// socket it left, is the run's error.
				rep, _ := io.ReadAll(pre.rep)
				if hr, ok := parseReport(rep); ok {
					err = reportError(hr)
				}
			}
			return err
		},
		ended: func() {
			// A helper that said its run ended (WaitEnd) has not exited:
			// it waits for its socket's end (linger, helper_linux.c). A
			// one-shot run leaves that socket open to gatedexec's exit,
			// and the helper to exit after it, unreaped. Any other
			// helper is killed, if it still runs (one never given the
			// go-ahead, or lingering), and reaped now: its cgroups are
			// the next run's once it has left them (spareCgroups).
			oneShot := r.LeaveToExit != nil && !r.LongLived
			if !pre.proc.ended || !oneShot {
				reap()
			}
			if oneShot {
				leaveToExit(pre.sock)
			} else {
				pre.sock.Close()
			}
			pre.done()
			if pre.mntns != nil {
				// Its last reference: torn down by the next prestart,
				// once the result is on its way.
				pool := &r.cache.pool
				pool.mu.Lock()
				pool.held = append(pool.held, pre.mntns)
				pool.mu.Unlock()
			}
		},
	}, nil
}

// leaveToExit closes f but leaves its descriptor open, with no finalizer
// that could close it, until the process exits (Runner.LeaveToExit).
// Should that fail, the close is paid now.
func leaveToExit(f *os.File) {
	if raw, err := f.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 3) })
	}
	f.Close()
}

// mountNSWait bounds the wait for a prestarted helper's mount namespace:
// a helper that takes longer to make its namespaces gets its go-ahead
// without (it reads it once made), and tears the namespace down itself.
const mountNSWait = 50 * time.Millisecond

// nsGetNSType is ioctl_ns(2)'s NS_GET_NSTYPE.
const nsGetNSType = 0xb703

// holdMountNS receives the descriptor of the helper's mount namespace
// (hand_mount_namespace, helper_linux.c), waiting at most mountNSWait:
// nil when none came in time or the helper has ended (the go-ahead then
// fails as it did before, and the helper reports why). A message that is
// not one descriptor of a mount namespace other than the runner's, whose
// inode is parent, is an error: the helper is not the one expected.
func (pre *prestarted) holdMountNS(parent uint64) (*os.File, error) {
	conn, err := pre.sock.SyscallConn()
	if err != nil {
		return nil, err
	}
	var (
		buf     [1]byte
		oob     = make([]byte, unix.CmsgSpace(4*2))
		n, oobn int
		recvErr error
		flags   int
		ready   bool
	)
	if err := conn.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if k, err := unix.Poll(fds, int(mountNSWait/time.Millisecond)); err != nil || k == 0 {
			return
		}
		ready = true
		n, oobn, flags, _, recvErr = unix.Recvmsg(int(fd), buf[:], oob, unix.MSG_CMSG_CLOEXEC|unix.MSG_DONTWAIT)
	}); err != nil {
		return nil, err
	}
	if !ready || recvErr == unix.EAGAIN || recvErr == nil && n == 0 && oobn == 0 {
		return nil, nil
	}
	if recvErr != nil {
		return nil, fmt.Errorf("sandbox: receiving the helper's mount namespace: %w", recvErr)
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			rights, err := unix.ParseUnixRights(&m)
			if err == nil {
				fds = append(fds, rights...)
			}
		}
	}
	if len(fds) == 1 && n == 1 && buf[0] == prestartMountNS && flags&unix.MSG_CTRUNC == 0 {
		f := os.NewFile(uintptr(fds[0]), "mntns")
		var st unix.Stat_t
		typ, err := unix.IoctlRetInt(fds[0], nsGetNSType)
		if err == nil && typ == unix.CLONE_NEWNS && unix.Fstat(fds[0], &st) == nil && st.Ino != parent {
			return f, nil
		}
		f.Close()
		return nil, errors.New("sandbox: the helper's mount namespace is not a private one")
	}
	for _, fd := range fds {
		unix.Close(fd)
	}
	return nil, fmt.Errorf("sandbox: the helper sent %d descriptors and %q where its mount namespace was due", len(fds), buf[:n])
}

// shutdownWrite ends what is written on the socket f, keeping it open.
func shutdownWrite(f *os.File) {
	if conn, err := f.SyscallConn(); err == nil {
		conn.Control(func(fd uintptr) { unix.Shutdown(int(fd), unix.SHUT_WR) })
	}
}

// execed waits, for a helper spawned without waiting for its exec, until
// that exec has happened or failed (spawnexec.Child.Execed), once.
func (pre *prestarted) execed() error {
	if pre.spawn == nil {
		return nil
	}
	err := pre.spawn.Execed()
	pre.spawn = nil
	return err
}

// done releases the forking thread once the helper is reaped.
func (pre *prestarted) done() {
	pre.releaseOnce.Do(func() { close(pre.release) })
}

// end ends a helper no run took: nil, failed to start, or taken is
// nothing to end. Its cgroups stay: they are a run's (see discard).
func (pre *prestarted) end() {
	if pre == nil || pre.err != nil || pre.taken {
		return
	}
	pre.endOnce.Do(func() {
		pre.proc.Kill()
		pre.execed()
		pre.proc.Wait()
		pre.sock.Close()
		pre.rep.Close()
		pre.done()
	})
}

// discard ends a helper that will serve no run, and its cgroups.
func (pre *prestarted) discard() {
	if pre.err != nil {
		return
	}
	pre.end()
	if pre.cg != nil {
		// Its init dies of the helper's death a moment after it.
		pre.cg.killAll()
		pre.cg.remove()
	}
}

// errNotPrestartable marks stdio a prestarted helper cannot be given.
var errNotPrestartable = errors.New("not for a prestarted helper")

// prestartStdio returns the files the helper gets for io3: a writer that
// is not a file gets a pipe io3 relays to it (stdio.relay), as exec.Cmd
// would copy it.
func prestartStdio(io3 *stdio) (files [3]*os.File, err error) {
	if io3.term != nil || io3.ctty != 0 {
		return files, errNotPrestartable
	}
	switch in := io3.stdin.(type) {
	case nil:
	case *os.File:
		files[0] = in
	default:
		return files, errNotPrestartable
	}
	for i, w := range []io.Writer{io3.stdout, io3.stderr} {
		switch w := w.(type) {
		case nil:
		case *os.File:
			files[i+1] = w
		default:
			if files[i+1], err = io3.relay(w); err != nil {
				return files, err
			}
		}
	}
	return files, nil
}
