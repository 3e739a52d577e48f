//go:build linux

package linux

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/plainfile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupLimit is one limit a run's cgroup sets: the controller, the file
// that holds it in a v1 hierarchy and in the unified one, and its value.
type cgroupLimit struct {
	controller, v1File, v2File string
	value                      uint64
	// layer names the limit in Result.Layers once applied.
	layer string
}

// limitsKey returns limits written out, every field of each, for telling
// two sets apart (prestartKey, keptCgroupStem): fmt.Sprint did it with
// reflection, 10 µs of every sandboxed start, before the helper's fork.
func limitsKey(limits []cgroupLimit) string {
	var b strings.Builder
	for _, l := range limits {
		for _, f := range []string{l.controller, l.v1File, l.v2File, l.layer} {
			b.WriteString(f)
			b.WriteByte(0)
		}
		b.WriteString(strconv.FormatUint(l.value, 10))
		b.WriteByte('\n')
	}
	return b.String()
}

// Layer names of the cgroup limits of a root run.
const (
	// LayerPIDsCgroup bounds the tasks of a root run: the kernel exempts
	// uid 0 from RLIMIT_NPROC, in a user namespace too.
	LayerPIDsCgroup = "pids-cgroup"
	// LayerMemoryCgroup bounds the memory of a root run.
	LayerMemoryCgroup = "memory-cgroup"
	// LayerTreeCgroup holds every process of an unrestricted run, which
	// has no PID namespace, so that the run's end kills those that left
	// its process group (setsid).
	LayerTreeCgroup = "tree-cgroup"
)

// runCgroups are the cgroups of one run, one per hierarchy used, made
// below gatedexec's own and removed after it, or kept for the next run.
type runCgroups struct {
	dirs   []string
	layers []string
	// set are the limit files written, with their values: written again
	// before another run is given the cgroups (reusable).
	set []limitFile
	// lock, for kept cgroups (claimKeptCgroups), holds them for this run.
	lock *os.File
}

// limitFile is a cgroup file that holds a limit, and the limit.
type limitFile struct {
	path, value string
}

// newRunCgroups makes cgroups that apply each limit the host has the
// controller for (as root; best effort: a host without it runs without
// that limit, and the result does not list it). Nothing is returned when
// no limit could be set.
func newRunCgroups(h *cgroupHost, limits []cgroupLimit) *runCgroups {
	if h.err != nil || !slices.ContainsFunc(limits, func(l cgroupLimit) bool { return l.value != 0 }) {
		return nil
	}
	g := namedCgroups(h, limits, fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), time.Now().UnixNano()), false)
	// Only the limits written are the run's.
	layers, set := g.layers[:0:0], g.set[:0:0]
	for i, f := range g.set {
		if plainfile.WriteFile(f.path, []byte(f.value)) == nil {
			layers, set = append(layers, g.layers[i]), append(set, f)
		}
	}
	g.layers, g.set = layers, set
	if len(g.layers) == 0 {
		g.remove()
		return nil
	}
	return g
}

// namedCgroups makes a cgroup named name in each hierarchy that has the
// controller of one of limits (taking one there already when existing is
// set), and lists the limit files to write with each one's layer; it
// writes none.
func namedCgroups(h *cgroupHost, limits []cgroupLimit, name string, existing bool) *runCgroups {
	g := &runCgroups{}
	for _, l := range limits {
		if l.value == 0 {
			continue
		}
		parent, file, ok := h.parentOf(l)
		if !ok {
			continue
		}
		dir := filepath.Join(parent, name)
		if !slices.Contains(g.dirs, dir) {
			if err := os.Mkdir(dir, 0o755); err != nil && !(existing && errors.Is(err, os.ErrExist)) {
				continue
			}
			g.dirs = append(g.dirs, dir)
		}
		g.layers = append(g.layers, l.layer)
		g.set = append(g.set, limitFile{filepath.Join(dir, file), strconv.FormatUint(l.value, 10)})
	}
	return g
}

// treeController is the controller whose hierarchy holds an unrestricted
// run's cgroup: the pids one sets no limit, and is the one hosts have.
const treeController = "pids"

// newTreeCgroup makes the cgroup an unrestricted run's processes are
// kept in, without limits: in the v1 pids hierarchy, else in the unified
// one. Nil when the host has neither or this process may not make one
// there (an unprivileged caller on a v1 host): the run is then ended by
// its process group alone.
func newTreeCgroup(h *cgroupHost) *runCgroups {
	if h.err != nil {
		return nil
	}
	parent, _, ok := h.parentOf(cgroupLimit{controller: treeController})
	if !ok && h.v2 != "" && isDir(filepath.Join(cgroupRoot, h.v2)) {
		parent, ok = filepath.Join(cgroupRoot, h.v2), true
	}
	if !ok {
		return nil
	}
	dir := filepath.Join(parent, fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), time.Now().UnixNano()))
	if os.Mkdir(dir, 0o755) != nil {
		return nil
	}
	return &runCgroups{dirs: []string{dir}, layers: []string{LayerTreeCgroup}}
}

// cgroupPrefix starts the name of every run's cgroup, which goes on with
// the pid of the gatedexec that made it and the time it did, in
// nanoseconds since the epoch.
const cgroupPrefix = "gatedexec-"

// parentOf returns the cgroup directory a run's cgroup for limit l is made
// in (this process's own, in the hierarchy that has l's controller) and
// the file that holds the limit there; false when the host has no such
// hierarchy.
func (h *cgroupHost) parentOf(l cgroupLimit) (parent, file string, ok bool) {
	if p, ok := h.v1[l.controller]; ok && isDir(filepath.Join(cgroupRoot, l.controller, p)) {
		return filepath.Join(cgroupRoot, l.controller, p), l.v1File, true
	}
	if h.v2 != "" && slices.Contains(h.v2Controllers, l.controller) {
		return filepath.Join(cgroupRoot, h.v2), l.v2File, true
	}
	return "", "", false
}

// staleCgroupAge is how long ago a run's cgroup must have been made for
// sweepStale to take it for one its gatedexec left behind: longer than a
// run takes from making its cgroup to moving its helper into it.
const staleCgroupAge = time.Minute

// sweepStale removes, from the directories the runs' cgroups for limits
// are made in, the cgroups that a gatedexec killed before it could remove
// them left behind (SIGKILL, a crash): each holds nothing, but they pile
// up. One is stale when the pid its name carries is gone and it was made
// more than staleCgroupAge ago; the kernel refuses to remove one that
// still has tasks (a gatedexec of another PID namespace, whose pid this
// one cannot see, whose command still runs). Best effort.
func sweepStale(h *cgroupHost, limits []cgroupLimit, now time.Time) {
	if h.err != nil {
		return
	}
	seen := map[string]bool{}
	for _, l := range limits {
		parent, _, ok := h.parentOf(l)
		if !ok || seen[parent] {
			continue
		}
		seen[parent] = true
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			pid, made, ok := parseCgroupName(e.Name())
			if ok && e.IsDir() && now.Sub(made) > staleCgroupAge && unix.Kill(pid, 0) == unix.ESRCH {
				os.Remove(filepath.Join(parent, e.Name()))
			}
		}
	}
}

// parseCgroupName reads the pid and the time of making from the name of
// a run's cgroup.
func parseCgroupName(name string) (pid int, made time.Time, ok bool) {
	rest, found := strings.CutPrefix(name, cgroupPrefix)
	if !found {
		return 0, time.Time{}, false
	}
	p, t, found := strings.Cut(rest, "-")
	pid, err1 := strconv.Atoi(p)
	ns, err2 := strconv.ParseInt(t, 10, 64)
	if !found || err1 != nil || err2 != nil || pid <= 0 {
		return 0, time.Time{}, false
	}
	return pid, time.Unix(0, ns), true
}

// cgroupHost is where this process's cgroups are and what the unified one
// hands down, read once per Runner: a Gate serving many runs reads the
// files once. A cgroup moved or removed meanwhile makes the next runs'
// mkdir fail, which leaves their limits out, as on a host without them.
type cgroupHost struct {
	v1            map[string]string
	v2            string
	v2Controllers []string
	err           error
}

// readCgroupHost reads this process's cgroups and the unified one's
// subtree_control.
func readCgroupHost() *cgroupHost {
	h := &cgroupHost{}
	if h.v1, h.v2, h.err = ownCgroups(); h.err == nil && h.v2 != "" {
		if b, err := plainfile.ReadFile(filepath.Join(cgroupRoot, h.v2, "cgroup.subtree_control")); err == nil {
			h.v2Controllers = strings.Fields(string(b))
		}
	}
	return h
}

// unifiedCgroups says whether the host mounts the unified hierarchy alone
// (cgroup2 at cgroupRoot), where a process cannot move only itself into
// a cgroup by its tasks file (taskFiles): one statfs, where reading the
// host's cgroups (readCgroupHost) opens and parses two files.
func unifiedCgroups() bool {
	var st unix.Statfs_t
	return unix.Statfs(cgroupRoot, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
}

// ownCgroups reads this process's cgroups: its path in each v1 hierarchy
// by controller, and in the unified one.
func ownCgroups() (v1 map[string]string, v2 string, err error) {
	f, err := plainfile.Open("/proc/self/cgroup", 0)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	v1 = map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			v1[c] = parts[2]
		}
	}
	if len(v1) == 0 && v2 == "" {
		return nil, "", errors.New("no cgroups")
	}
	return v1, v2, sc.Err()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// add moves pid, and so everything it forks after, into the cgroups.
func (g *runCgroups) add(pid int) error {
	for _, d := range g.dirs {
		if err := plainfile.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid))); err != nil {
			return fmt.Errorf("sandbox: cgroup %s: %w", d, err)
		}
	}
	return nil
}

// enterThread moves the calling thread, and so every process it forks
// after, into the cgroups: a child is then in them from its first
// instruction, where add could only move it after it may have forked.
// Only a v1 hierarchy moves a single thread of a process (its tasks
// file); the caller keeps the thread to this run until leaveThread.
//
// The thread names itself as "0", not by its tid: for the caller alone
// the kernel skips the global threadgroup lock, whose write side waits
// out an RCU grace period. Named by tid (as add names the helper's
// pid), one move took 7-15 ms on the 6.18 host of `make bench`, "0"
// 0.1 ms, measured side by side.
//
// On an error the caller moves the thread back out of those it entered
// (leaveThread), or it would keep them from being removed.
func (g *runCgroups) enterThread() error {
	for _, d := range g.dirs {
		if err := plainfile.WriteFile(filepath.Join(d, "tasks"), []byte("0")); err != nil {
			return fmt.Errorf("sandbox: cgroup %s: %w", d, err)
		}
	}
	return nil
}

// taskFiles opens the tasks file of each of g's cgroups for writing, for
// a process forked outside them to move itself in by (a prestarted
// helper, await_cgroups in helper_linux.c): a single-threaded process
// that writes "0" there moves alone, without the lock enterThread
// avoids, and no thread of this process need enter and leave them. Nil
// when a cgroup has no such file (the unified hierarchy moves whole
// processes only) or there are more than a helper takes.
func (g *runCgroups) taskFiles() []*os.File {
	if len(g.dirs) == 0 || len(g.dirs) > prestartCgroupFDs {
		return nil
	}
	files := make([]*os.File, 0, len(g.dirs))
	for _, d := range g.dirs {
		f, err := plainfile.Open(filepath.Join(d, "tasks"), unix.O_WRONLY)
		if err != nil {
			closeAll(files)
			return nil
		}
		files = append(files, f)
	}
	return files
}

// leaveThread moves the calling thread back to the cgroups the run's are
// made in, once it has forked the run: it would keep them from being
// removed, and count against their limits.
func (g *runCgroups) leaveThread() error {
	var errs []error
	for _, d := range g.dirs {
		errs = append(errs, plainfile.WriteFile(filepath.Join(filepath.Dir(d), "tasks"), []byte("0")))
	}
	return errors.Join(errs...)
}

// fork runs fork, which starts the run's first process, so that the
// process is in the cgroups from its first instruction: on a thread that
// enters them first (enterThread) and leaves them once fork returns.
// Where the thread cannot enter (a unified hierarchy moves whole
// processes only), fork is handed add, to move the process in once
// started: the helper waits for it, a command started directly may have
// forked already (README, Sandbox notes). A nil g hands nil.
//
// A thread that cannot leave the run's cgroups is never unlocked: it
// ends with its goroutine rather than fork the next run from inside
// them.
func (g *runCgroups) fork(fork func(add func(pid int) error) error) error {
	if g == nil {
		return fork(nil)
	}
	runtime.LockOSThread()
	left := true
	defer func() {
		if left {
			runtime.UnlockOSThread()
		}
	}()
	if g.enterThread() != nil {
		left = g.leaveThread() == nil
		return fork(g.add)
	}
	defer func() { left = g.leaveThread() == nil }()
	return fork(nil)
}

// killRounds bounds killAll's rounds: a process forking as fast as it
// is killed ends within a few, a fork bomb is left to the rest.
const killRounds = 200

// killAll sends SIGKILL to every process in the cgroups but this one
// (whose forking thread is in them while it forks, see enterThread),
// until none is left: the run's end for processes that left its process
// group. The unified hierarchy's cgroup.kill does it in one write where
// the kernel has it (5.14). Best effort: a pid read from cgroup.procs could be
// reused between the read and the kill only by a process that exited
// meanwhile, whose pid the kernel hands out last.
func (g *runCgroups) killAll() {
	if len(g.dirs) == 0 {
		return
	}
	dir := g.dirs[0] // every task of the run is in each of them
	if plainfile.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1")) == nil {
		return
	}
	self := os.Getpid()
	for range killRounds {
		pids, err := cgroupProcs(dir)
		pids = slices.DeleteFunc(pids, func(p int) bool { return p == self })
		if err != nil || len(pids) == 0 {
			return
		}
		for _, p := range pids {
			unix.Kill(p, unix.SIGKILL)
		}
		time.Sleep(time.Millisecond) // a SIGKILLed task leaves the cgroup as it exits
	}
}

// cgroupProcs reads the processes in the cgroup dir.
func cgroupProcs(dir string) ([]int, error) {
	b, err := plainfile.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var pids []int
	for f := range strings.FieldsSeq(string(b)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids, nil
}

// reusable reports whether the cgroups of a run that has ended can be
// another run's: no task is in any of them (a run without a PID
// namespace leaves what it detached; a forking thread that could not
// leave stays), no memory is charged to them that the next run could
// not reclaim (files on a tmpfs, locked pages), which would lower its
// limit, and every later run's, and their limits are written again, so
// that they are what the next run is given whatever became of them.
// False when one cannot be read or written.
func (g *runCgroups) reusable() bool {
	for _, d := range g.dirs {
		b, err := plainfile.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil || len(bytes.TrimSpace(b)) > 0 {
			return false
		}
		stat, err := plainfile.ReadFile(filepath.Join(d, "memory.stat"))
		if errors.Is(err, os.ErrNotExist) {
			continue // not a memory cgroup
		}
		if err != nil || !unreclaimableFree(string(stat)) {
			return false
		}
	}
	for _, l := range g.set {
		if plainfile.WriteFile(l.path, []byte(l.value)) != nil {
			return false
		}
	}
	return true
}

// unreclaimableFree reports whether a memory.stat (v1 or unified) says
// the cgroup holds no shared memory (tmpfs, System V or memfd pages) and
// nothing unevictable; both lines must be there.
func unreclaimableFree(stat string) bool {
	seen := 0
	for line := range strings.Lines(stat) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		if name == "shmem" || name == "unevictable" {
			if value != "0" {
				return false
			}
			seen++
		}
	}
	return seen == 2
}

// remove deletes the cgroups once their last task is gone; kept ones
// (claimKeptCgroups) it gives back instead.
func (g *runCgroups) remove() {
	if g.lock != nil {
		// Kept: given back, for the next run to claim.
		g.lock.Close()
		return
	}
	for _, d := range g.dirs {
		for i := 0; i < 50; i++ {
			if err := os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// pendingCgroups are a run's cgroups, made in the background while the
// run is prepared: their mkdirs and limit writes cost about as much as
// planning the mounts, and neither waits for the other. A LongLived
// Runner also removes them after the run without holding up its result.
type pendingCgroups struct {
	done chan struct{}
	cg   *runCgroups
	// background, when set, removes them in the background.
	background *sync.WaitGroup
	// keep, when set, is offered them first, and keeps them when it
	// returns true (keepCgroups): they are then not removed.
	keep func(*runCgroups) bool
}

// cgroupsFor starts making the cgroups of a run of p: root is exempt from
// RLIMIT_NPROC, and memory has no rlimit that runtimes bear, so cgroups
// of the run bound both where the host has the controllers (best effort:
// not every host does). Nil when p sets none.
//
// An unrestricted run gets one cgroup without limits instead, which
// holds its process tree (newTreeCgroup), for anyone the host lets make
// one.
func (r *Runner) cgroupsFor(p *sandbox.Profile) *pendingCgroups {
	if os.Geteuid() != 0 && !p.Unrestricted {
		return nil
	}
	a := &pendingCgroups{done: make(chan struct{})}
	if r.LongLived {
		a.background = &r.cache.background
	}
	host, limits := r.cgroupHost(), cgroupLimits(p.Limits)
	r.cache.background.Go(func() {
		if p.Unrestricted {
			a.cg = newTreeCgroup(host)
		} else {
			a.cg = r.newCgroups(host, limits)
		}
		close(a.done)
		// Once per LongLived Runner, after the run has its cgroups. A
		// one-shot run does not sweep: even while it only waited for
		// its command, the sweep cost a sandboxed start 0.6 ms
		// (measured), for cgroups that only a killed gatedexec leaves.
		if r.LongLived {
			r.cache.sweepOnce.Do(func() { sweepStale(host, limits, time.Now()) })
		}
	})
	return a
}

// newCgroups returns cgroups for a run with limits: for a one-shot run,
// kept ones where it can claim them (claimKeptCgroups), else made now.
func (r *Runner) newCgroups(h *cgroupHost, limits []cgroupLimit) *runCgroups {
	if !r.LongLived {
		if g := claimKeptCgroups(h, limits); g != nil {
			return g
		}
	}
	return newRunCgroups(h, limits)
}

// wait returns the cgroups once made, nil when none could be.
func (a *pendingCgroups) wait() *runCgroups {
	if a == nil {
		return nil
	}
	<-a.done
	return a.cg
}

// release removes the cgroups once the run's tasks are gone.
func (a *pendingCgroups) release() {
	cg := a.wait()
	if cg == nil || a.keep != nil && a.keep(cg) {
		return
	}
	if a.background == nil {
		cg.remove()
		return
	}
	a.background.Go(cg.remove)
}
