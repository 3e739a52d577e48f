//go:build linux

// Package linux is the Linux sandbox backend: Landlock, seccomp, mount and
// network namespaces, rlimits and the exec helper that applies them.
//
// The runner prepares everything in the calling process (Landlock ruleset
// fd, seccomp BPF, mount plan) and starts the helper, a small static C
// program built into gatedexec (helper/, helperbin.go), that applies them
// to itself and execs the target. Go threads exist before main, and
// Landlock and seccomp bind to threads, so they cannot be applied to the
// runner itself; a C program costs an exec, not a Go start.
package linux

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// stderrTailSize bounds the stderr kept for denial detection.
const stderrTailSize = 16 << 10

// Runner runs commands under the Linux backend.
type Runner struct {
	// Warn receives the one best-effort warning per run; nil means os.Stderr.
	Warn io.Writer
	// Exe is the helper program to start; empty means the one built into
	// gatedexec (helperbin.go).
	Exe string
	// LongLived says the Runner serves run after run, for a long-lived
	// engine: it keeps the placeholder directories the runs make for
	// missing protect paths (.gatedexec, .git/hooks) until Close instead
	// of removing each after its run, so that the next run in the same
	// workspace neither makes nor removes them; it removes each run's
	// cgroups in the background after the run instead of before
	// returning its result; and its first run sweeps the cgroups killed
	// gatedexecs left (sweepStale). Close ends all three.
	LongLived bool
	// KeptNetNS, when set, is the directory where a Runner run as root
	// keeps the network namespaces of network-off runs, for later runs to
	// join instead of making their own (keptnet.go): KeptNetNSDir for
	// gatedexec. Empty: every run makes its own.
	KeptNetNS string
	// LeaveToExit, when set, says the process exits once its runs have
	// ended, through it, after its caller has the status (gatedexec's
	// main). A one-shot run's end then leaves to that exit what only
	// waits out an RCU grace period: the runner's end of the helper's
	// socket stays open instead of being closed (the helper hands its
	// mount namespace there, and dropping it unmounts every mount of the
	// run), and the placeholders of its mount plan are renamed aside and
	// removed once the process has exited (holders.release), since
	// removing one, a mount point in the run's namespace, detaches it
	// there. A descriptor per run, and one per placeholder's directory,
	// stay open meanwhile. A process that ran a command here maps enough
	// for its exit to leave the unmapping of its memory to a child too
	// (exitunmap.Leave.HoldMemory).
	LeaveToExit *exitunmap.Leave

	// cache holds what every run on this Runner shares: the host's
	// facts, probed once, and the seccomp programs built so far.
	cache runnerCache

	// early is what StartEarly did for the next run (early.go).
	early *early
}

var _ sandbox.Runner = (*Runner)(nil)

// Run runs c under c.Profile. A strict profile whose layers cannot all be
// applied returns an error wrapping sandbox.ErrLayerUnavailable and runs
// nothing.
func (r *Runner) Run(ctx context.Context, c *Command) (*sandbox.Result, error) {
	if c.Profile == nil {
		return nil, errors.New("sandbox: command has no profile")
	}
	start, err := r.begin(c)
	if err != nil {
		r.EndEarly()
		return nil, err
	}
	return r.run(ctx, c, start, sandbox.NewGitWatch(c.Profile, r.warn()))
}

// runStart is what Run decides of a run before the git scan.
type runStart struct {
	caps            Capabilities
	layers, missing []string
	unshare         uint32 // namespaces(layers, caps)
	limits          []cgroupLimit
	// bpf is the run's seccomp program (seccompProgram), nil without
	// the layer; rules is its table's key.
	bpf   []byte
	rules [sha256.Size]byte
	// ahead is the helper of a one-shot run started as a prestarted
	// one (startAhead), which the run owns; nil for none.
	ahead *prestarted
}

// begin refuses a run that cannot start (no command, a layer a strict
// profile needs that this host lacks, a proxy without its namespace) and
// plans its layers, namespaces and cgroup limits; a one-shot run that a
// prestarted helper can serve gets its helper started here, before the
// git scan and the plan.
func (r *Runner) begin(c *Command) (runStart, error) {
	p := c.Profile
	if len(c.Argv) == 0 {
		return runStart{}, errors.New("sandbox: empty command")
	}
	st := runStart{caps: r.host()}
	st.layers, st.missing = PlanLayers(p, st.caps)
	if len(st.missing) > 0 && p.Enforcement != sandbox.BestEffort {
		return runStart{}, fmt.Errorf("profile %s: %s: %w", p.Name, strings.Join(st.missing, ", "), sandbox.ErrLayerUnavailable)
	}
	if p.Network == sandbox.NetworkProxy && !slices.Contains(st.layers, sandbox.LayerEgress) && !slices.Contains(st.layers, sandbox.LayerEgressFallback) {
		// Best effort or not: without its namespace or the fallback the
		// proxy judges nothing, and the command would reach every host.
		return runStart{}, fmt.Errorf("profile %s: network mode \"proxy\" needs a network namespace, which this host does not give: %w",
			p.Name, sandbox.ErrLayerUnavailable)
	}
	st.unshare, st.limits = namespaces(st.layers, st.caps), cgroupLimits(p.Limits)
	if !p.Unrestricted && slices.Contains(st.layers, sandbox.LayerSeccomp) {
		// Once for the run: its helper started ahead loads it too. A
		// one-shot run's early hint holds its last run's, lent first
		// so that it is not read again. (A LongLived Runner's early is
		// never set.)
		r.early.lendProgram(&r.cache)
		var err error
		if st.bpf, st.rules, err = r.seccompProgram(p); err != nil {
			return runStart{}, err
		}
	}
	if !r.LongLived {
		e := r.takeEarly()
		key, ok := r.prestartKeyOf(c, st.unshare, st.limits, st.bpf)
		want := earlyHint{ok: ok, key: key, limits: st.limits}
		if key.bpf != "" {
			want.rules = st.rules
		}
		st.ahead = e.helperFor(want)
		if ok && st.ahead == nil {
			st.ahead = r.startAhead(key, st.limits, p.BuildCache)
		}
		// After the start: a hint that changed is written once.
		e.keep(want)
		if st.ahead == nil {
			go warmProcessStart()
		}
	}
	return st, nil
}

// Close ends what a LongLived Runner keeps or does between runs: it
// removes the placeholder directories still empty and held by no other
// run, and waits for the cgroup work of the runs (their removal, the
// sweep of stale ones) to end. Call it once every run has ended.
func (r *Runner) Close() error {
	r.closePrestarted()
	r.cache.kept.release()
	r.cache.background.Wait()
	return nil
}

func (r *Runner) warn() io.Writer {
	if r.Warn == nil {
		return os.Stderr
	}
	return r.Warn
}

// warmProcessStart has the os package probe, now, what it probes before
// the first process a Go program starts: whether pidfds work, for which
// it forks and waits for a child of its own (~0.1 ms here). A one-shot
// run whose helper is not started ahead starts it after the git scan and
// the plan: probed in the background meanwhile, the probe is off the
// helper's start, where it was.
func warmProcessStart() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
}

// run runs c as begin planned it (st), owning the helper it started. The
// git scan before the run (watch) waits until the command's start does
// not: the helper has its spec and sets up its mounts while the runner
// scans, and starts the command on the go-ahead that follows the scan.
// The scan after the run comes before the run's holders are removed, so
// that both see the workspace with them.
func (r *Runner) run(ctx context.Context, c *Command, st runStart, watch *sandbox.GitWatch) (*sandbox.Result, error) {
	p := c.Profile
	caps, layers, missing, limits := st.caps, st.layers, st.missing, st.limits
	// After the refusals (begin): a run that does not happen makes nothing.
	p.MakeMissingDirs()
	r.LeaveToExit.HoldMemory()
	spec := helperSpec{Argv: c.Argv, Dir: c.Dir, Rlimits: rlimits(p.Limits), Unshare: st.unshare}
	var cgs *pendingCgroups
	pre := st.ahead
	if r.LongLived {
		// A one-shot run's prestart, if any, was begin's (st.ahead).
		if key, ok := r.prestartKeyOf(c, spec.Unshare, limits, st.bpf); ok {
			pre = r.takePrestarted(key)
			// Once this run has ended: started during it, the next
			// helper's namespaces slowed it down.
			defer r.refill(key, limits)
		}
	}
	if pre != nil {
		cgs = r.prestartedCgroups(pre)
	} else {
		cgs = r.cgroupsFor(p)
	}
	defer cgs.release()
	// Every way out before the run takes it ends it (before the cgroups'
	// release, which waits for their tasks).
	defer pre.end()
	env := sandbox.SetEnv(sandbox.ScrubEnv(c.Env, p.EnvDeny), c.SetEnv)
	var err error
	path := ""
	if pr, plain := plainExec(c, env, slices.Contains(layers, sandbox.LayerMountNS)); plain {
		path, spec.Argv, env = pr.path, c.Plain, pr.env
		spec.FallbackPath, spec.FallbackArgv = pr.bash, c.Argv
	} else if path, err = sandbox.LookPath(c.Argv[0], c.Dir, env); err != nil {
		return &sandbox.Result{ExitCode: 127, Layers: layers, Missing: missing}, err
	}
	spec.Path, spec.Env = path, env
	var ruleset *os.File
	var hold *holders
	if !p.Unrestricted {
		if err := refuseDirStdio(c); err != nil {
			return nil, err
		}
		spec.CloseFDs, spec.DropCaps = true, true
		spec.BPF = st.bpf
		if caps.LandlockABI > 0 {
			fd, flags, err := newRulesetFD(p, caps.LandlockABI)
			if err != nil {
				return nil, err
			}
			if fd >= 0 {
				f := os.NewFile(uintptr(fd), "landlock-ruleset")
				defer f.Close()
				ruleset = f
				spec.Landlock, spec.LandlockFlags = true, flags
			} else {
				// go-landlock's best-effort downgrade enforces nothing
				// when a rule needs a right the kernel lacks (refer on
				// ABI 1): the layer planned is then missing, not applied.
				if p.Enforcement != sandbox.BestEffort {
					return nil, fmt.Errorf("profile %s: %s: kernel Landlock ABI %d cannot enforce the profile's rules: %w",
						p.Name, sandbox.LayerLandlock, caps.LandlockABI, sandbox.ErrLayerUnavailable)
				}
				layers = slices.DeleteFunc(layers, func(l string) bool { return l == LandlockLayer(caps.LandlockABI) })
				missing = append(missing, sandbox.LayerLandlock)
			}
		}
	}
	if pre != nil && pre.key.keptNet && !spec.Landlock {
		// A kept namespace is another run's too: only Landlock's scope
		// keeps their abstract sockets apart.
		return nil, fmt.Errorf("profile %s: a kept network namespace without Landlock: %w", p.Name, sandbox.ErrLayerUnavailable)
	}
	// visible are the directories of the host's /tmp kept read-only for
	// this command, and plan is p with them, for the mounts (below).
	var visible []string
	plan := p
	if slices.Contains(layers, sandbox.LayerMountNS) {
		// The working directory is only a hint for holders: unknown is "".
		cwd, aerr := filepath.Abs(c.Dir)
		if aerr != nil {
			cwd = ""
		}
		visible = privateTmpVisible(p, cwd, path)
		plan = withVisible(p, visible)
		if spec.Mounts, hold, err = holdMounts(plan, cwd); err != nil {
			return nil, err
		}
		if r.LongLived {
			r.cache.kept.keep(hold)
		} else {
			hold.leave = r.LeaveToExit
		}
		defer func() { hold.release(spec.Unshare&unix.CLONE_NEWPID != 0) }()
		for _, d := range p.PrivateTmp {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				spec.Tmp = append(spec.Tmp, d)
			}
		}
		spec.Keep = keepPaths(plan)
	}
	if slices.Contains(layers, sandbox.LayerNetNS) {
		// With the network off the namespace only keeps the host's
		// abstract sockets away: TCP is refused anyway.
		spec.LoopbackUp = p.Network == sandbox.NetworkIsolated || p.Network == sandbox.NetworkProxy
		if p.Network == sandbox.NetworkProxy {
			spec.Egress = egressPorts()
			spec.Env = egress.ProxyEnv(env, proxyPort)
		}
	}
	if spec.Unshare&unix.CLONE_NEWNS != 0 || slices.Contains(layers, sandbox.LayerPIDNS) {
		sockets, err := hostSockets(plan, visible)
		if err != nil {
			return nil, err
		}
		spec.Mounts = append(spec.Mounts, sockets...)
		spec.Reopen = reopenStdio(c, p)
		// A mount namespace of its own gets a /dev of its own: no block
		// device, no terminal of the caller's, ptys that work. It covers
		// the host's whole: a protect, hide or socket mount there would
		// be of nothing the command sees (a prestarted helper has made
		// it already, and refuses them).
		spec.Dev = true
		spec.Mounts = slices.DeleteFunc(spec.Mounts, func(op mountOp) bool { return within(op.Path, "/dev") })
		if spec.Landlock {
			spec.PtsAccess = fsRights(caps.LandlockABI, ptsAccess)
			spec.DirAccess = fsRights(caps.LandlockABI, writableDirAccess)
		}
	}
	if spec.Unshare&unix.CLONE_NEWNS != 0 {
		if spec.ParentMntNS, err = mountNSInode(); err != nil {
			return nil, fmt.Errorf("sandbox: mount namespace: %w", err)
		}
	}
	// One for the run, whichever way it starts: the fallback's proxy is
	// made before the relay.
	th := newTermHold()
	res, err := r.start(ctx, c, p, &spec, ruleset, cgs, th, pre, watch)
	if err != nil && errors.Is(err, errNamespaces) {
		if p.Enforcement != sandbox.BestEffort {
			return nil, fmt.Errorf("profile %s: %v: %w", p.Name, err, sandbox.ErrLayerUnavailable)
		}
		for _, l := range []string{sandbox.LayerMountNS, sandbox.LayerNetNS, sandbox.LayerEgress, sandbox.LayerPIDNS} {
			if i := slices.Index(layers, l); i >= 0 {
				layers = slices.Delete(layers, i, i+1)
				missing = append(missing, l)
			}
		}
		// Everything that lives in the namespaces goes with them; the
		// helper would refuse a spec that kept any (fail closed).
		spec.Unshare, spec.Mounts, spec.LoopbackUp, spec.ParentMntNS = 0, nil, false, 0
		spec.Tmp, spec.Keep, spec.Reopen, spec.Dev = nil, nil, nil, false
		if len(spec.Egress) == 0 {
			res, err = r.start(ctx, c, p, &spec, ruleset, cgs, th, nil, watch)
		} else {
			spec.Egress = nil
			res, err = r.startFallback(ctx, c, p, &spec, env, caps, cgs, th, watch)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(r.warn(), "gatedexec: warning: profile %s: sandbox layers not applied on this host: %s\n", p.Name, strings.Join(missing, ", "))
	}
	if res != nil {
		res.Layers, res.Missing = append(layers, res.Layers...), missing
	}
	watch.After(res)
	return res, err
}

// namespaces returns the namespaces a run with layers creates.
func namespaces(layers []string, caps Capabilities) uint32 {
	var flags uint32
	if slices.Contains(layers, sandbox.LayerMountNS) {
		// An IPC namespace with it: System V IPC objects are not files,
		// so Landlock cannot keep the command from the shared memory,
		// semaphores and message queues of processes outside.
		flags |= unix.CLONE_NEWNS | unix.CLONE_NEWIPC
	}
	if slices.Contains(layers, sandbox.LayerNetNS) {
		flags |= unix.CLONE_NEWNET
	}
	if slices.Contains(layers, sandbox.LayerPIDNS) {
		// The init mounts the namespace's /proc, so it needs a mount
		// namespace; an IPC one comes with it as above.
		flags |= unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWIPC
	}
	if flags != 0 && !caps.Root {
		flags |= unix.CLONE_NEWUSER
	}
	return flags
}

// Command is the backend's name for sandbox.Command.
type Command = sandbox.Command

// errNamespaces marks a helper that could not set up its namespaces or
// the mounts in them, and ran nothing.
var errNamespaces = errors.New("cannot set up namespaces")

// start starts the helper of the run of spec, or the command itself
// (direct), and waits for it; watch scans before the command may start.
func (r *Runner) start(ctx context.Context, c *Command, p *sandbox.Profile, spec *helperSpec, ruleset *os.File, cgs *pendingCgroups, hold *termHold, pre *prestarted, watch *sandbox.GitWatch) (*sandbox.Result, error) {
	var tail *sandbox.TailBuffer // none for a caller that reads none
	if !c.NoStderrTail {
		tail = &sandbox.TailBuffer{Max: stderrTailSize}
	}
	// A pty needs a session of the command's own to be its controlling
	// terminal; a profile that keeps the caller's session keeps its
	// terminal too.
	io3, err := newStdio(c, !p.NoSetsid && !p.NoPty, tail, hold)
	if err != nil {
		pre.end()
		return nil, err
	}
	spec.Ctty = io3.ctty
	if direct(p, spec) {
		// Only an unrestricted profile runs direct, and it watches no
		// git (WatchesGit): watch is nil. One that was not would never
		// scan here, and After would report the run unchecked.
		pre.end()
		return r.startDirect(ctx, c, p, spec, io3, tail, cgs)
	}
	spec.Affinity = runnerCPUs() // a run without the helper needs none
	data, err := spec.encode()
	if err != nil {
		pre.end()
		io3.close()
		return nil, err
	}
	var eg *egressRun
	if len(spec.Egress) > 0 {
		if eg, err = newEgress(p, hold.hooks(c.Net)); err != nil {
			pre.end()
			io3.close()
			return nil, err
		}
		defer eg.mine.Close()
		defer eg.theirs.Close()
		// Every way out ends the proxy; the way below reads its denials.
		defer eg.stop()
	}
	var h *helperStart
	if pre != nil {
		if h, err = pre.use(r, spec, io3, ruleset, eg, data); err != nil {
			io3.close()
			return nil, err
		}
	}
	if h == nil {
		if h, err = r.newHelperStart(p, io3, ruleset, eg, data); err != nil {
			io3.close()
			return nil, err
		}
	}
	defer h.rep.Close()
	cmd := h.cmd
	cg := cgs.wait()
	var begin time.Time
	finished := false
	defer func() {
		// Every way out puts the caller's terminal back.
		if !finished {
			io3.finish()
		}
	}()
	sup := &sandbox.Supervisor{Timeout: p.Limits.Timeout, ForwardSignals: c.ForwardSignals, Watch: c.Signals}
	if cg != nil && spec.Unshare&unix.CLONE_NEWPID == 0 {
		// Without a PID namespace nothing else ends what left the group.
		sup.KillTree = cg.killAll
	}
	if c.ForwardSignals && onTerminal() {
		// The helper supervises the command when it forks an init or a
		// job-control parent; otherwise it is the command.
		sup.Job = &termJob{io3: io3, supervised: spec.Unshare&unix.CLONE_NEWPID != 0 || spec.Ctty > 0}
	}
	start := func() error {
		begin = time.Now()
		if err := h.start(cg, watch.Before); err != nil {
			io3.close()
			finished = true
			return err
		}
		io3.started()
		if eg != nil {
			eg.start(ctx)
		}
		return nil
	}
	var timedOut bool
	if h.proc != nil {
		timedOut, err = sup.RunProcess(ctx, h.proc, start)
	} else {
		timedOut, err = sup.Run(ctx, cmd, start)
	}
	h.ended()
	if err != nil {
		return nil, err
	}
	finished = true
	io3.finish()
	res := &sandbox.Result{Duration: time.Since(begin), TimedOut: timedOut, StderrTail: tail.Bytes()}
	if eg != nil {
		var egErr error
		if res.Denied, egErr = eg.stop(); egErr != nil {
			fmt.Fprintf(r.warn(), "gatedexec: warning: %v (the command had no network from then on)\n", egErr)
		}
	}
	if cg != nil {
		res.Layers = append(res.Layers, cg.layers...)
	}
	res.ExitCode, res.Signal = h.exitStatus()
	rep, ws, ended, err := splitEnd(h.report())
	if err != nil {
		return nil, err
	}
	if ended {
		// The helper's word on how the target ended: it may not have
		// exited yet (WaitEnd).
		res.ExitCode, res.Signal = sandbox.WaitExitStatus(ws)
	}
	if hr, ok := parseReport(rep); ok {
		switch hr.tag {
		case reportSignal:
			if res.Signal, err = reportedSignal(hr.msg, res.ExitCode, res.Signal); err != nil {
				return nil, err
			}
		case reportNotFound:
			return res, fmt.Errorf("%s: %s: %w", spec.Argv[0], hr.msg, sandbox.ErrNotFound)
		case reportCannotExec:
			return res, fmt.Errorf("%s: %s: %w", spec.Argv[0], hr.msg, sandbox.ErrCannotExec)
		default:
			return nil, reportError(hr)
		}
	}
	return res, nil
}

// reportError is the error of a helper that reported a failure of its
// set-up: of its namespaces (errNamespaces, which a best-effort run falls
// back from) or of another layer.
func reportError(hr helperReport) error {
	if hr.tag == reportNamespaces {
		return fmt.Errorf("%w: %s", errNamespaces, hr.msg)
	}
	return fmt.Errorf("sandbox helper: %s: %w", hr.msg, sandbox.ErrLayerUnavailable)
}

// reportedSignal returns the signal a helper that is its PID namespace's
// init reported (reportSignal msg) as the one that killed the target,
// checked against how the helper ended: it exits 128+N, and a helper
// killed itself reports nothing.
func reportedSignal(msg string, code, sig int) (int, error) {
	n, err := strconv.Atoi(msg)
	if err != nil || n <= 0 || n >= 65 || code != 128+n || sig != 0 {
		return 0, fmt.Errorf("sandbox helper: a signal report %q with exit status %d, signal %d: %w", msg, code, sig, sandbox.ErrLayerUnavailable)
	}
	return n, nil
}

// helperStart is how a run's helper starts: forked now (newHelperStart),
// cmd, or prestarted and handed its run (prestarted.use), proc.
type helperStart struct {
	cmd  *exec.Cmd
	proc *proc
	// rep is the report pipe's read end.
	rep *os.File
	// start starts the run in the cgroups cg (nil for none), calling
	// ready once the helper has its spec and before its go-ahead; on an
	// error nothing of the run is left.
	start func(cg *runCgroups, ready func()) error
	// ended runs once the helper is reaped, or never started.
	ended func()
}

// report returns all the helper reported.
func (h *helperStart) report() []byte {
	if h.proc != nil && h.proc.rep != nil {
		return h.proc.Report()
	}
	rep, _ := io.ReadAll(h.rep)
	return rep
}

// exitStatus returns the exit code and signal of the helper, reaped.
func (h *helperStart) exitStatus() (code, sig int) {
	if h.proc != nil {
		ws, _ := h.proc.Status()
		return sandbox.WaitExitStatus(ws)
	}
	return sandbox.ExitStatus(h.cmd.ProcessState)
}

// newHelperStart prepares a helper forked for this run, in its cgroups,
// fed data as its spec.
func (r *Runner) newHelperStart(p *sandbox.Profile, io3 *stdio, ruleset *os.File, eg *egressRun, data []byte) (*helperStart, error) {
	exe, self, _, err := r.helperExe(sandbox.BuildCache{})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, sandbox.ErrLayerUnavailable)
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:       exe,
		Args:       []string{"gatedexec-sandbox", HelperArg},
		Env:        []string{},
		Stdin:      io3.stdin,
		Stdout:     io3.stdout,
		Stderr:     io3.stderr,
		ExtraFiles: helperFiles(specR, repW, ruleset, eg.helperEnd(), self),
		SysProcAttr: &syscall.SysProcAttr{
			Setsid:  !p.NoSetsid,
			Setpgid: p.NoSetsid,
			// The run dies with gatedexec; the supervisor keeps the
			// thread that forks it (golang/go#27505).
			Pdeathsig: syscall.SIGKILL,
		},
	}
	started := false
	return &helperStart{
		cmd: cmd,
		rep: repR,
		start: func(cg *runCgroups, ready func()) error {
			started = true
			return cg.fork(func(add func(int) error) error {
				placed := func(pid int) error {
					moveAside(pid) // the spec has the runner's CPUs
					if add == nil {
						return nil
					}
					return add(pid)
				}
				return startHelper(cmd, specR, repW, specW, data, placed, ready)
			})
		},
		ended: func() {
			if !started {
				specR.Close()
				specW.Close()
				repW.Close()
			}
		},
	}, nil
}

// termJob is job control of a command on gatedexec's terminal.
type termJob struct {
	io3 *stdio
	// supervised is set when the helper stays as the command's parent
	// (an init, a job-control parent) and passes a SIGTSTP on.
	supervised bool
}

// Stopped stops gatedexec, with the caller's terminal as it was, and
// gives the command the terminal again once gatedexec continues (fg).
func (j *termJob) Stopped() {
	j.io3.suspend()
	stopSelf()
	j.io3.resume()
}

// Suspend stops the command; its stop then stops gatedexec.
func (j *termJob) Suspend(pgid int) {
	if j.supervised {
		syscall.Kill(pgid, syscall.SIGTSTP)
	} else {
		syscall.Kill(-pgid, syscall.SIGSTOP)
	}
}

// Resume takes the terminal back for the command, continued by someone
// else than a stop of its own.
func (j *termJob) Resume() { j.io3.resume() }

// Resize passes the terminal's size on to the command's pty.
func (j *termJob) Resize() {
	if j.io3.term != nil {
		j.io3.term.syncSize()
	}
}

func rlimits(l sandbox.Limits) []rlimit {
	var out []rlimit
	for _, r := range []rlimit{
		{unix.RLIMIT_NOFILE, l.NoFile}, {unix.RLIMIT_NPROC, l.NProc}, {unix.RLIMIT_FSIZE, l.FSize},
		{unix.RLIMIT_CPU, l.CPU}, {unix.RLIMIT_AS, l.AS},
	} {
		if r.Value != 0 {
			out = append(out, r)
		}
	}
	return out
}

// stdioFiles returns c's standard descriptors that are files, by number;
// nil where one is not (a pipe gatedexec copies, nothing).
func stdioFiles(c *Command) [3]*os.File {
	var out [3]*os.File
	for fd, s := range []any{c.Stdin, c.Stdout, c.Stderr} {
		if f, ok := s.(*os.File); ok {
			out[fd] = f
		}
	}
	return out
}

// refuseDirStdio refuses a directory as one of c's standard descriptors.
// /proc/self/fd/N/NAME reaches everything below a directory through the
// caller's open of it, on the host's mounts: past the private /tmp, the
// hide and protect mounts and the covers of host sockets. No command
// needs a directory there, so none is passed on, rather than reopened.
func refuseDirStdio(c *Command) error {
	for fd, f := range stdioFiles(c) {
		if f == nil {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			return fmt.Errorf("sandbox: descriptor %d: %w", fd, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			path, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
			return fmt.Errorf("sandbox: descriptor %d is the directory %s, through which the command would reach every path below it past the sandbox: pass a file or a pipe", fd, path)
		}
	}
	return nil
}

// reopenStdio returns the standard descriptors of c that are files opened
// read-only below a protect, control or hide path. Opened on the caller's
// mounts, they would let the command reopen them for writing through
// /proc/self/fd/N, past the read-only and hiding mounts of its namespace;
// the helper reopens them there instead. Elsewhere Landlock judges such a
// reopen by the file's path, as any open, and a descriptor keeps the
// offset it shares with the caller.
func reopenStdio(c *Command, p *sandbox.Profile) []int {
	guarded := slices.Concat(p.Protect, p.Control, p.Hide)
	var fds []int
	for fd, f := range stdioFiles(c) {
		if f == nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink == 0 {
			continue
		}
		fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
		if err != nil || fl&unix.O_ACCMODE != unix.O_RDONLY {
			continue
		}
		// A file whose path cannot be told is reopened too: the helper
		// then refuses it rather than pass it on unjudged.
		path, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
		if err != nil || slices.ContainsFunc(guarded, func(g string) bool { return within(path, g) }) {
			fds = append(fds, fd)
		}
	}
	return fds
}

// cgroupLimits are the limits of l a run's cgroups set: its tasks, and its
// memory (a percentage of the host's memory as read now).
func cgroupLimits(l sandbox.Limits) []cgroupLimit {
	mem := l.Memory
	if l.MemoryPercent > 0 {
		var si unix.Sysinfo_t
		if unix.Sysinfo(&si) == nil {
			mem = uint64(si.Totalram) * uint64(si.Unit) / 100 * uint64(l.MemoryPercent)
		}
	}
	return limitsOf(l.NProc, mem)
}

// limitsOf returns the cgroup limits of at most pids tasks and mem bytes
// of memory (0: no limit).
func limitsOf(pids, mem uint64) []cgroupLimit {
	return []cgroupLimit{
		{controller: "pids", v1File: "pids.max", v2File: "pids.max", value: pids, layer: LayerPIDsCgroup},
		{controller: "memory", v1File: "memory.limit_in_bytes", v2File: "memory.max", value: mem, layer: LayerMemoryCgroup},
	}
}

// limitValues returns the values of limits, made by limitsOf.
func limitValues(limits []cgroupLimit) (pids, mem uint64) {
	for _, l := range limits {
		switch l.controller {
		case "pids":
			pids = l.value
		case "memory":
			mem = l.value
		}
	}
	return pids, mem
}

// stopSelf stops gatedexec the way a job stops, and returns once it is
// continued. SIGTSTP, which the shell reports as a stopped job, is dropped
// by the kernel for an orphaned process group (gatedexec started in a
// session of its own); SIGSTOP then.
func stopSelf() {
	sig := unix.SIGSTOP
	if ppid := unix.Getppid(); ppid > 1 {
		psid, err1 := unix.Getsid(ppid)
		sid, err2 := unix.Getsid(0)
		ppg, err3 := unix.Getpgid(ppid)
		if err1 == nil && err2 == nil && err3 == nil && psid == sid && ppg != unix.Getpgrp() {
			sig = unix.SIGTSTP
		}
	}
	if stopWith(sig) != nil {
		stopWith(unix.SIGSTOP)
	}
}
