//go:build linux

package linux

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestRunnerCgroups: a root run's command runs in cgroups of its own,
// which are gone once Run returns, or, for a LongLived Runner, once
// Close returns.
func TestRunnerCgroups(t *testing.T) {
	if os.Geteuid() != 0 || landlockABI() == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs as root on a host with Landlock")
		}
		t.Skip("cgroups are made as root only")
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
	for _, long := range []bool{false, true} {
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
	}
}
