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
// Close returns; the first run sweeps stale cgroups.
func TestRunnerCgroups(t *testing.T) {
	requireRoot(t, "cgroups are made as root only")
	if landlockABI() == 0 && os.Getenv("CI") == "" {
		t.Skip("no landlock")
	}
	h := readCgroupHost()
	if h.err != nil {
		t.Fatalf("this process's cgroups: %v", h.err)
	}
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
			if !slices.Contains(res.Layers, LayerPIDsCgroup) || !strings.Contains(out.String(), prefix) {
				t.Errorf("LongLived %v: layers %v, cgroups %q; want a pids cgroup of the run", long, res.Layers, out.String())
			}
			if got := left(); !long && len(got) > 0 {
				t.Errorf("the run's cgroups %v are left after Run", got)
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
	now := time.Now()
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
