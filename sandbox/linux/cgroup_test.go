//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestRunnerCgroups: a root run's command runs in cgroups of its own,
// which are gone once Run returns, or, for a LongLived Runner, once
// Close returns; the first run sweeps stale cgroups. A one-shot run's are
// kept ones (claimKeptCgroups), the same for each run, and left.
func TestRunnerCgroups(t *testing.T) {
	h := cgroupTestHost(t)
	// Where the runs' cgroups of the pids controller are made.
	parent := filepath.Join(cgroupRoot, h.v2)
	if p, ok := h.v1["pids"]; ok {
		parent = filepath.Join(cgroupRoot, "pids", p)
	}
	prefix := fmt.Sprintf("gatedexec-%d-", os.Getpid())
	left := func() []string {
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), prefix) {
				names = append(names, e.Name())
			}
		}
		return names
	}
	ws := t.TempDir()
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64}}
	kept := keptCgroupName(cgroupLimits(p.Limits), 0)
	t.Cleanup(func() { removeKept(t, h, cgroupLimits(p.Limits)) })
	// One that a gatedexec killed long ago left: a Runner's first run
	// sweeps it.
	stale := filepath.Join(parent, fmt.Sprintf("gatedexec-%d-%d", deadPid(t), time.Now().Add(-2*staleCgroupAge).UnixNano()))
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(stale) })
	for _, long := range []bool{true, false} {
		r := &Runner{LongLived: long}
		for range 3 {
			var out bytes.Buffer
			res, err := r.Run(context.Background(), &Command{Argv: []string{"cat", "/proc/self/cgroup"}, Dir: ws,
				Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out, Profile: p})
			if err != nil {
				t.Fatal(err)
			}
			want := prefix
			if !long {
				want = "/" + kept + "\n"
			}
			if !slices.Contains(res.Layers, LayerPIDsCgroup) || !strings.Contains(out.String(), want) {
				t.Errorf("LongLived %v: layers %v, cgroups %q; want a pids cgroup of the run (%s)", long, res.Layers, out.String(), want)
			}
			if got := left(); !long && len(got) > 0 {
				t.Errorf("the run's cgroups %v are left after Run", got)
			}
			if _, err := os.Stat(filepath.Join(parent, kept)); !long && err != nil {
				t.Errorf("the kept cgroup is gone after Run: %v", err)
			}
		}
		r.Close()
		if got := left(); len(got) > 0 {
			t.Errorf("LongLived %v: the runs' cgroups %v are left after Close", long, got)
		}
		if _, err := os.Stat(stale); long && err == nil {
			t.Errorf("the stale cgroup %s is left after the runs", stale)
		}
	}
}

// keptCgroupName is the name of the kept cgroups of slot for limits.
func keptCgroupName(limits []cgroupLimit, slot int) string {
	return keptCgroupStem(limits) + strconv.Itoa(slot)
}

// removeKept removes the kept cgroups for limits (a test's own limits).
func removeKept(t *testing.T, h *cgroupHost, limits []cgroupLimit) {
	t.Helper()
	for slot := range keptCgroupSlots {
		for _, l := range limits {
			if parent, _, ok := h.parentOf(l); ok && l.value != 0 {
				dir := filepath.Join(parent, keptCgroupName(limits, slot))
				if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("removing %s: %v", dir, err)
				}
			}
		}
	}
}

// Kept cgroups: a run claims the first set no other holds, made where
// missing, with its limits written again; a set with a task in it is
// passed over; given back, a set is claimed again, the same directories.
func TestKeptCgroups(t *testing.T) {
	h := cgroupTestHost(t)
	limits := cgroupLimits(sandbox.Limits{NProc: 4242, Memory: 1 << 30})
	t.Cleanup(func() { removeKept(t, h, limits) })
	first := claimKeptCgroups(h, limits)
	if first == nil || len(first.layers) == 0 {
		t.Fatalf("claimed %+v", first)
	}
	for _, d := range first.dirs {
		if filepath.Base(d) != keptCgroupName(limits, 0) {
			t.Errorf("first claim in %s, want slot 0", d)
		}
	}
	second := claimKeptCgroups(h, limits)
	if second == nil || filepath.Base(second.dirs[0]) != keptCgroupName(limits, 1) {
		t.Fatalf("second claim while the first is held: %+v, want slot 1", second)
	}
	second.remove()
	// A task in slot 0, given back with it: passed over.
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	if err := first.add(sleep.Process.Pid); err != nil {
		t.Fatal(err)
	}
	first.remove()
	if _, err := os.Stat(first.dirs[0]); err != nil {
		t.Fatalf("a kept cgroup given back is gone: %v", err)
	}
	pids := first.set[slices.IndexFunc(first.set, func(f limitFile) bool { return strings.HasSuffix(f.path, "pids.max") })].path
	third := claimKeptCgroups(h, limits)
	if third == nil || filepath.Base(third.dirs[0]) != keptCgroupName(limits, 1) {
		t.Fatalf("claim with a task in slot 0: %+v, want slot 1", third)
	}
	third.remove()
	sleep.Process.Kill()
	sleep.Wait()
	// Emptied, slot 0 is claimed again, its limit written again.
	if err := os.WriteFile(pids, []byte("7"), 0); err != nil {
		t.Fatal(err)
	}
	var again *runCgroups
	for deadline := time.Now().Add(5 * time.Second); again == nil || again.dirs[0] != first.dirs[0]; time.Sleep(10 * time.Millisecond) {
		if again != nil {
			again.remove()
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot 0 not claimed again once empty")
		}
		again = claimKeptCgroups(h, limits)
	}
	defer again.remove()
	if b, err := os.ReadFile(pids); err != nil || strings.TrimSpace(string(b)) != "4242" {
		t.Errorf("pids.max %q, %v after the claim; want 4242", b, err)
	}
}

// cgroupTestHost skips a test of a root run's cgroups where it cannot
// run, and returns this process's cgroups.
func cgroupTestHost(t *testing.T) *cgroupHost {
	t.Helper()
	requireRoot(t, "cgroups are made as root only")
	requireLandlock(t)
	h := readCgroupHost()
	if h.err != nil {
		t.Fatalf("this process's cgroups: %v", h.err)
	}
	return h
}

func TestParseCgroupName(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		ns   int64
		ok   bool
	}{
		{"gatedexec-123-1796480282664231810", 123, 1796480282664231810, true},
		{"gatedexec-1-0", 1, 0, true},
		{"gatedexec-0-5", 0, 0, false},
		{"gatedexec--5", 0, 0, false},
		{"gatedexec-12", 0, 0, false},
		{"gatedexec-x-5", 0, 0, false},
		{"gatedexec-5-5-5", 0, 0, false},
		{"user.slice", 0, 0, false},
		{"gatedexec-5-99999999999999999999", 0, 0, false},
	}
	for _, tt := range tests {
		pid, made, ok := parseCgroupName(tt.name)
		if ok != tt.ok || ok && (pid != tt.pid || made.UnixNano() != tt.ns) {
			t.Errorf("parseCgroupName(%q) = %d, %v, %v; want %d, %v", tt.name, pid, made.UnixNano(), ok, tt.pid, tt.ok)
		}
	}
}

// TestSweepStaleCgroups: sweepStale removes the cgroups that a gatedexec
// gone for more than a minute left behind, and none of a live process, a
// recent one, or one with tasks.
func TestSweepStaleCgroups(t *testing.T) {
	requireRoot(t, "cgroups are made as root only")
	h := readCgroupHost()
	limits := cgroupLimits(sandbox.Limits{NProc: 64})
	parent, _, ok := h.parentOf(limits[0])
	if h.err != nil || !ok {
		t.Fatalf("this host has no pids cgroup for the runs (%v)", h.err)
	}
	dead := deadPid(t)
	// A process with a task in a stale-looking cgroup, as a run's command
	// of a gatedexec this one cannot see.
	busy := exec.Command("sleep", "30")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	// The test's clock runs a day ahead: to any other gatedexec's sweep
	// (a long-lived run of another test package, at the same time) these
	// cgroups were made in the future, and are none of its business.
	now := time.Now().Add(24 * time.Hour)
	old := now.Add(-2 * staleCgroupAge).UnixNano()
	busyName := fmt.Sprintf("gatedexec-%d-%d", dead, old+1)
	removed := map[string]bool{
		fmt.Sprintf("gatedexec-%d-%d", dead, old):                                   true,
		fmt.Sprintf("gatedexec-%d-%d", dead, now.Add(-staleCgroupAge/2).UnixNano()): false,
		fmt.Sprintf("gatedexec-%d-%d", os.Getpid(), old):                            false,
		busyName: false,
	}
	t.Cleanup(func() {
		busy.Process.Kill()
		busy.Wait()
		for name := range removed {
			os.Remove(filepath.Join(parent, name))
		}
	})
	for name := range removed {
		if err := os.Mkdir(filepath.Join(parent, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(parent, busyName, "cgroup.procs"), []byte(strconv.Itoa(busy.Process.Pid)), 0); err != nil {
		t.Fatal(err)
	}
	sweepStale(h, limits, now)
	for name, want := range removed {
		_, err := os.Stat(filepath.Join(parent, name))
		if got := errors.Is(err, fs.ErrNotExist); got != want {
			t.Errorf("%s: removed %v, want %v", name, got, want)
		}
	}
}

// deadPid returns the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	return gone.ProcessState.Pid()
}

// TestPrestartedKeepsCgroups: a LongLived Runner's prestarted runs are
// given the cgroups of the run before when they are empty: the same
// pids and memory cgroups, limits in place. Cgroups a task is left in,
// or that tmpfs memory is still charged to, are not given to the next
// run; Close leaves none.
func TestPrestartedKeepsCgroups(t *testing.T) {
	h := cgroupTestHost(t)
	limits := cgroupLimits(sandbox.Limits{NProc: 64, Memory: 512 << 20})
	var parents []string
	for _, l := range limits {
		if parent, _, ok := h.parentOf(l); ok {
			parents = append(parents, parent)
		}
	}
	if len(parents) != 2 {
		t.Fatalf("this host's cgroup hierarchies for pids and memory: %v; want both", parents)
	}
	ws := t.TempDir()
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64, Memory: 512 << 20}}
	r := &Runner{LongLived: true}
	// run runs script, which writes its cgroups to ws/cg first, calling
	// during (if set) once it has; it returns the name of the run's
	// cgroups (one in each hierarchy).
	run := func(script string, during func(name string)) string {
		t.Helper()
		cgFile := filepath.Join(ws, "cg")
		os.Remove(cgFile)
		done := make(chan error, 1)
		go func() {
			var errb bytes.Buffer
			res, err := r.Run(context.Background(), &Command{Argv: []string{"sh", "-c", "cat /proc/self/cgroup >" + cgFile + "; " + script},
				Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Stderr: &errb, Profile: p})
			if err == nil && (res.ExitCode != 0 || !slices.Contains(res.Layers, LayerMemoryCgroup) || !slices.Contains(res.Layers, LayerPIDsCgroup)) {
				err = fmt.Errorf("exit %d, layers %v, stderr %q", res.ExitCode, res.Layers, errb.String())
			}
			done <- err
		}()
		var name string
		for deadline := time.Now().Add(10 * time.Second); name == "" && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			b, _ := os.ReadFile(cgFile)
			if i := bytes.Index(b, []byte("/"+cgroupPrefix)); i >= 0 && bytes.HasSuffix(b, []byte("\n")) {
				name = string(b[i+1:])
				name = name[:strings.IndexByte(name, '\n')]
			}
		}
		if name != "" && during != nil {
			during(name)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if name == "" {
			t.Fatal("the run wrote no cgroup of its own")
		}
		return name
	}
	run("", nil) // its helper and cgroups are its own
	second := run("", nil)
	if third := run("", nil); third != second {
		t.Errorf("the run after %s had the cgroups %s, want them again", second, third)
	}
	// Kept, with their limits.
	for i, l := range limits {
		file := l.v2File
		if strings.HasPrefix(parents[i], filepath.Join(cgroupRoot, l.controller)+"/") || parents[i] == filepath.Join(cgroupRoot, l.controller) {
			file = l.v1File
		}
		limit, err := os.ReadFile(filepath.Join(parents[i], second, file))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(limit)); got != strconv.FormatUint(l.value, 10) {
			t.Errorf("%s of the kept cgroups: %s, want %d", file, got, l.value)
		}
	}
	// A limit that changed while a run had them is written again before
	// the next run is given them.
	var pidsDir string
	for i, l := range limits {
		if l.controller == "pids" {
			pidsDir = parents[i]
		}
	}
	changed := run("sleep 0.3", func(name string) {
		if err := os.WriteFile(filepath.Join(pidsDir, name, "pids.max"), []byte("100"), 0); err != nil {
			t.Fatal(err)
		}
	})
	var during []byte
	if next := run("sleep 0.3", func(name string) {
		during, _ = os.ReadFile(filepath.Join(pidsDir, name, "pids.max"))
	}); next != changed {
		t.Errorf("the run after %s had the cgroups %s, want them again", changed, next)
	}
	if got := strings.TrimSpace(string(during)); got != "64" {
		t.Errorf("pids.max of the kept cgroups in the next run: %q, want 64 again", got)
	}
	// A process outside the run enters its cgroups, and stays there.
	var stray *exec.Cmd
	withTask := run("sleep 0.3", func(name string) {
		stray = exec.Command("sleep", "30")
		if err := stray.Start(); err != nil {
			t.Fatal(err)
		}
		for _, parent := range parents {
			if err := os.WriteFile(filepath.Join(parent, name, "cgroup.procs"), []byte(strconv.Itoa(stray.Process.Pid)), 0); err != nil {
				t.Fatal(err)
			}
		}
	})
	if next := run("", nil); next == withTask {
		t.Errorf("the run after %s had its cgroups, a task still in them", withTask)
	}
	stray.Process.Kill()
	stray.Wait()
	// Memory of a tmpfs file is charged to the memory cgroup, whose
	// writer has left it.
	shm, err := os.CreateTemp("/dev/shm", "gatedexec-test-")
	if err != nil {
		t.Fatal(err)
	}
	shm.Close()
	t.Cleanup(func() { os.Remove(shm.Name()) })
	withShmem := run("sleep 0.3", func(name string) {
		var memcg string
		for _, parent := range parents {
			if !strings.Contains(parent, "pids") {
				memcg = filepath.Join(parent, name)
			}
		}
		script := fmt.Sprintf("echo $$ >%s/cgroup.procs && head -c 1048576 /dev/zero >%s && echo $$ >%s/cgroup.procs", memcg, shm.Name(), filepath.Dir(memcg))
		if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", script, err, out)
		}
	})
	if next := run("", nil); next == withShmem {
		t.Errorf("the run after %s had its cgroups, tmpfs memory still charged to them", withShmem)
	}
	os.Remove(shm.Name())
	r.Close()
	for _, name := range []string{withTask, withShmem} {
		for _, parent := range parents {
			os.Remove(filepath.Join(parent, name)) // in case its removal gave up on the task
		}
	}
	for _, parent := range parents {
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), fmt.Sprintf("%s%d-", cgroupPrefix, os.Getpid())) {
				t.Errorf("%s/%s is left after Close", parent, e.Name())
				os.Remove(filepath.Join(parent, e.Name()))
			}
		}
	}
}

func TestUnreclaimableFree(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want bool
	}{
		{"cache 4096\nrss 0\nshmem 0\nmapped_file 0\nunevictable 0\ntotal_shmem 5\n", true},
		{"anon 0\nfile 8192\nshmem 0\nunevictable 0\n", true},
		{"cache 4096\nshmem 1048576\nunevictable 0\n", false},
		{"shmem 0\nunevictable 4096\n", false},
		{"shmem 0\n", false}, // a line missing: not known to be free
		{"", false},
		{"total_shmem 0\ntotal_unevictable 0\n", false},
	} {
		if got := unreclaimableFree(tc.stat); got != tc.want {
			t.Errorf("unreclaimableFree(%q) = %v, want %v", tc.stat, got, tc.want)
		}
	}
}

// TestRunnerAheadEndedEarly: a one-shot run that ends before it takes
// the helper it started ahead (startAhead), here for a command not found,
// ends that helper and gives its kept cgroups back: no child is left, and
// the slot is free for the next run.
func TestRunnerAheadEndedEarly(t *testing.T) {
	h := cgroupTestHost(t)
	ws := t.TempDir()
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 4343}}
	limits := cgroupLimits(p.Limits)
	t.Cleanup(func() { removeKept(t, h, limits) })
	for range 3 {
		_, err := (&Runner{}).Run(context.Background(), &Command{Argv: []string{"no-such-program-xyz"}, Dir: ws,
			Env: []string{"PATH=/usr/bin:/bin"}, Profile: p})
		if !errors.Is(err, sandbox.ErrNotFound) {
			t.Fatalf("Run = %v, want %v", err, sandbox.ErrNotFound)
		}
		if kids := ownChildren(t); kids != "" {
			t.Errorf("children left after Run: %q", kids)
		}
		g := claimKeptCgroups(h, limits)
		if g == nil || filepath.Base(g.dirs[0]) != keptCgroupName(limits, 0) {
			t.Fatalf("after Run the first free set of kept cgroups is %+v, want slot 0", g)
		}
		g.remove()
	}
}

// ownChildren returns the children of every thread of the test process:
// a helper is the child of the thread that forked it, which need not be
// the main one.
func ownChildren(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil || len(files) == 0 {
		t.Fatalf("no /proc/self/task/*/children (%v)", err)
	}
	var kids []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		kids = append(kids, strings.Fields(string(b))...)
	}
	return strings.Join(kids, " ")
}

// limitsKey tells apart two sets of limits that differ in any field, or
// in their order, and gives equal sets one key.
func TestLimitsKey(t *testing.T) {
	base := cgroupLimits(sandbox.Limits{NProc: 64, Memory: 1 << 30})
	same := cgroupLimits(sandbox.Limits{NProc: 64, Memory: 1 << 30})
	if limitsKey(base) != limitsKey(same) {
		t.Fatalf("equal limits, keys %q and %q", limitsKey(base), limitsKey(same))
	}
	for name, change := range map[string]func(l []cgroupLimit){
		"value":      func(l []cgroupLimit) { l[0].value++ },
		"controller": func(l []cgroupLimit) { l[1].controller = "memory2" },
		"v1 file":    func(l []cgroupLimit) { l[1].v1File = "memory.memsw.limit_in_bytes" },
		"v2 file":    func(l []cgroupLimit) { l[1].v2File = "memory.high" },
		"layer":      func(l []cgroupLimit) { l[0].layer = "other" },
		"order":      func(l []cgroupLimit) { l[0], l[1] = l[1], l[0] },
		"field split": func(l []cgroupLimit) {
			l[0].controller, l[0].v1File = l[0].controller+l[0].v1File[:1], l[0].v1File[1:]
		},
	} {
		l := slices.Clone(base)
		change(l)
		if limitsKey(l) == limitsKey(base) {
			t.Errorf("%s changed, the key did not: %q", name, limitsKey(l))
		}
		if keptCgroupStem(l) == keptCgroupStem(base) {
			t.Errorf("%s changed, the kept cgroups' names did not", name)
		}
	}
}
