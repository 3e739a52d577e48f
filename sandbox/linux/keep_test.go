//go:build linux

package linux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestRunnerKeepHolders: a LongLived Runner makes the holders of
// missing protect paths once and keeps them between its runs, while they
// still protect; another run in the workspace does not remove them; Close
// removes them, leaving the workspace as it was. A Runner without it
// leaves nothing after each run.
func TestRunnerKeepHolders(t *testing.T) {
	requireLandlock(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	layer := filepath.Join(ws, ".gatedexec")
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Protect: []string{layer, filepath.Join(ws, ".git", "hooks")}, Network: sandbox.NetworkOff, UnixSockets: true}
	run := func(r *Runner, script string) int {
		t.Helper()
		res, err := r.Run(context.Background(), &Command{Argv: []string{"sh", "-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		return res.ExitCode
	}
	inode := func() uint64 {
		t.Helper()
		var st unix.Stat_t
		if err := unix.Lstat(layer, &st); err != nil {
			t.Fatalf("the holder of %s: %v", layer, err)
		}
		return st.Ino
	}
	empty := func(when string) {
		t.Helper()
		if entries, err := os.ReadDir(ws); err != nil || len(entries) != 0 {
			t.Errorf("%s: the workspace holds %v (%v), want nothing", when, entries, err)
		}
	}

	if code := run(&Runner{}, "true"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	empty("after a run of a Runner not LongLived")

	kept := &Runner{LongLived: true}
	if code := run(kept, "mkdir .gatedexec/rules"); code == 0 {
		t.Error("the command wrote into the kept holder of .gatedexec")
	}
	first := inode()
	if code := run(&Runner{}, "true"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if code := run(kept, "mkdir -p .git/hooks/x || exit 0; exit 1"); code != 0 {
		t.Error("the command wrote into the kept holder of .git/hooks")
	}
	if got := inode(); got != first {
		t.Errorf("the holder was made again (inode %d, then %d), want it kept", first, got)
	}
	if err := kept.Close(); err != nil {
		t.Fatal(err)
	}
	empty("after Close")
}

// TestRunnerLongLivedConcurrent runs commands at once through one
// LongLived Runner in one workspace, as an MCP server's concurrent calls
// do (make test runs it under the race detector): every run succeeds and
// is protected, and once Close returns nothing is left of the runs, in
// the workspace or among the cgroups.
func TestRunnerLongLivedConcurrent(t *testing.T) {
	requireLandlock(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Protect: []string{filepath.Join(ws, ".gatedexec"), filepath.Join(ws, ".git", "hooks")},
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64}}
	r := &Runner{LongLived: true}
	const workers, runs = 4, 5
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range runs {
				res, err := r.Run(context.Background(), &Command{
					Argv: []string{"sh", "-c", "touch w" + strconv.Itoa(w*runs+i) + " && ! mkdir .gatedexec/x 2>/dev/null"},
					Dir:  ws, Env: []string{"PATH=/usr/bin:/bin"}, Profile: p})
				if err != nil || res.ExitCode != 0 {
					t.Errorf("run %d/%d: %v %+v", w, i, err, res)
				}
			}
		})
	}
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "w") {
			t.Errorf("%s is left in the workspace after Close", e.Name())
		}
	}
	if len(entries) != workers*runs {
		t.Errorf("%d files in the workspace, want the %d the runs made", len(entries), workers*runs)
	}
	if os.Geteuid() == 0 {
		h := readCgroupHost()
		parent, _, ok := h.parentOf(cgroupLimits(p.Limits)[0])
		if ok {
			left, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("%s%d-*", cgroupPrefix, os.Getpid())))
			if len(left) > 0 {
				t.Errorf("cgroups %v are left after Close", left)
			}
		}
	}
}

// TestHolderOwner: as root, a holder made in another user's directory
// is that user's, so that the user can fill it (`git init` in an empty
// .git) while a long-lived runner keeps it; one made in root's own stays
// root's.
func TestHolderOwner(t *testing.T) {
	requireRoot(t, "only root makes holders for another user")
	const nobody = 65534
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		uid  int
	}{{"user", nobody}, {"root", 0}} {
		ws := filepath.Join(base, tt.name)
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(ws, tt.uid, tt.uid); err != nil {
			t.Fatal(err)
		}
		p := &sandbox.Profile{Name: "t", Write: []string{ws}, Protect: []string{filepath.Join(ws, ".git", "hooks")}}
		_, hold, err := holdMounts(p, "")
		if err != nil {
			t.Fatal(err)
		}
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(ws, ".git"), &st); err != nil {
			t.Fatalf("%s: the holder of .git/hooks: %v", tt.name, err)
		}
		if int(st.Uid) != tt.uid || int(st.Gid) != tt.uid {
			t.Errorf("%s: the holder is owned by %d:%d, want %d:%d", tt.name, st.Uid, st.Gid, tt.uid, tt.uid)
		}
		hold.release(true)
	}
}

// TestRunKeepsScanOnce: one-shot runs in a workspace without .gatedexec/
// make and remove its holder around the git scans; the scan's cache entry
// is not written again by the runs after the second (the holder changes
// only the root, which the next scan reads again whatever is kept). That
// a holder made in an earlier tick of the file clock than the scan is no
// reason to write either is TestScanCacheKeepsWhatSparesAReads's: here
// the scan follows the mkdir within a tick in most runs.
func TestRunKeepsScanOnce(t *testing.T) {
	requireLandlock(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	control, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	scans := filepath.Join(control, "scans")
	for _, d := range []string{filepath.Join(ws, "src", "a"), filepath.Join(ws, "src", "b"), scans} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws}, Workspace: ws,
		Control: []string{control}, Protect: []string{filepath.Join(ws, ".gatedexec")}, Network: sandbox.NetworkOff, UnixSockets: true}
	p = sandbox.WithScanCache(p, scans)
	if p.ScanCache == "" {
		t.Fatal("the profile keeps no scan cache")
	}
	entry := func() uint64 {
		t.Helper()
		names, err := filepath.Glob(filepath.Join(scans, "[0-9a-f]*"))
		if err != nil || len(names) != 1 {
			t.Fatalf("the scan cache holds %v (%v), want one entry", names, err)
		}
		var st unix.Stat_t
		if err := unix.Lstat(names[0], &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	var inodes []uint64
	for range 4 {
		time.Sleep(10 * time.Millisecond) // each run a tick of the file clock after the one before
		res, err := (&Runner{}).Run(context.Background(), &Command{Argv: []string{"true"}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Profile: p})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("run: %v, %+v", err, res)
		}
		if _, err := os.Lstat(filepath.Join(ws, ".gatedexec")); err == nil {
			t.Fatal("the holder of .gatedexec stayed after the run")
		}
		inodes = append(inodes, entry())
	}
	// The first run kept the workspace; the second, the root that the
	// first run's holder changed; none after it.
	if inodes[2] != inodes[1] || inodes[3] != inodes[2] {
		t.Errorf("the scan cache entry was written again by runs that changed nothing (inodes %v)", inodes)
	}
}
