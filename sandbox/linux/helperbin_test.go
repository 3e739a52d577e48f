//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/cachefile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// TestHelperELFMissing: a gatedexec built without its helper (a plain go
// build) has no program to run, and says how to build it; nothing runs.
func TestHelperELFMissing(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"absent": {"helperbin/README.md": {Data: []byte("x")}},
		"empty":  {helperName: {Data: nil}},
	} {
		f, err := os.CreateTemp(t.TempDir(), "helper")
		if err != nil {
			t.Fatal(err)
		}
		if err := writeHelper(fsys, int(f.Fd())); !errors.Is(err, errNoHelper) {
			t.Errorf("%s: %v, want errNoHelper", name, err)
		}
		f.Close()
	}
}

// TestSealedHelper: what runs is the program built in, in a memfd that
// takes no write and no resize, read-only and closed at exec.
func TestSealedHelper(t *testing.T) {
	want, err := fs.ReadFile(helperDir, helperName)
	if err != nil || len(want) == 0 {
		t.Fatalf("no helper built in (%v): run make build", err)
	}
	f, err := sealedHelper()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seals, err := unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []int{unix.F_SEAL_SEAL, unix.F_SEAL_SHRINK, unix.F_SEAL_GROW, unix.F_SEAL_WRITE} {
		if seals&s == 0 {
			t.Errorf("seal %#x missing (seals %#x)", s, seals)
		}
	}
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_ACCMODE != unix.O_RDONLY {
		t.Errorf("flags %#x (%v), want read-only", fl, err)
	}
	if fd, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0); err != nil || fd&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor flags %#x (%v), want close-on-exec", fd, err)
	}
	got := make([]byte, len(want)+1)
	n, _ := f.ReadAt(got, 0)
	if !bytes.Equal(got[:n], want) {
		t.Errorf("memfd holds %d bytes, not the %d-byte helper", n, len(want))
	}
	// Reopened for writing through /proc, it still takes no write.
	w, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), unix.O_WRONLY, 0)
	if err == nil {
		_, werr := unix.Write(w, []byte("x"))
		unix.Close(w)
		if werr == nil {
			t.Error("a write to the sealed helper succeeded")
		}
	}
}

// TestHelperCopy: a one-shot run whose profile has a build cache starts
// its helper from the helper's copy there, made by the first run (mode
// 0500, the program built in), and a copy it cannot start the helper
// from (damaged, or on a file system that executes nothing) leaves the
// run to the memfd, the run unharmed. Without a build cache (caches off,
// a managed layer) the memfd serves.
func TestHelperCopy(t *testing.T) {
	requireRoot(t, "a one-shot run's helper is started ahead as root")
	requireLandlock(t)
	want, err := fs.ReadFile(helperDir, helperName)
	if err != nil || len(want) == 0 {
		t.Fatalf("no helper built in (%v): run make build", err)
	}
	const build = "test-build"
	for _, tt := range []struct {
		name string
		// cache prepares the cache directory and returns it; "" gives
		// the run no build cache.
		cache func(t *testing.T) string
		// opened says the run found a copy to start the helper from,
		// failed that the helper did not start from it.
		opened, failed bool
	}{
		{"made by the run", func(t *testing.T) string { return filepath.Join(t.TempDir(), "cache") }, true, false},
		{"kept by an earlier run", func(t *testing.T) string {
			dir := filepath.Join(t.TempDir(), "cache")
			cachefile.WriteProgram(dir, helperCopyName(build), want)
			return dir
		}, true, false},
		{"damaged", func(t *testing.T) string {
			dir := filepath.Join(t.TempDir(), "cache")
			cachefile.WriteProgram(dir, helperCopyName(build), bytes.Repeat([]byte{0x90}, len(want)))
			return dir
		}, true, true},
		{"on a noexec file system", func(t *testing.T) string {
			dir := t.TempDir()
			if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOEXEC, "mode=0700"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
			return filepath.Join(dir, "cache")
		}, false, false},
		{"no build cache", func(*testing.T) string { return "" }, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir := tt.cache(t)
			p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws}, Workspace: ws,
				Protect: []string{filepath.Join(ws, ".gatedexec")}, Network: sandbox.NetworkOff, UnixSockets: true}
			if dir != "" {
				p.BuildCache = sandbox.BuildCache{Dir: dir, Build: build}
			}
			r := &Runner{}
			res, err := r.Run(context.Background(), &Command{Argv: []string{"true"}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Profile: p})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: %v, %+v", err, res)
			}
			opened, failed := r.cache.helperCopy != nil, r.cache.copyFailed.Load()
			if opened != tt.opened || failed != tt.failed {
				t.Errorf("copy opened %v, failed %v; want %v, %v", opened, failed, tt.opened, tt.failed)
			}
			// The memfd is made only for a helper the copy did not start.
			copied := tt.opened && !tt.failed
			if memfd := r.cache.helper != nil; memfd == copied {
				t.Errorf("memfd made: %v, want %v", memfd, !copied)
			}
			entry := filepath.Join(dir, helperCopyName(build))
			if tt.failed {
				// Removed, for the next gatedexec to write afresh.
				if _, err := os.Lstat(entry); err == nil {
					t.Error("the copy the helper did not start from is still there")
				}
			}
			if !copied {
				return
			}
			st, err := os.Stat(entry)
			if err != nil || st.Mode().Perm() != 0o500 {
				t.Fatalf("the copy: %v, %v; want mode 0500", st, err)
			}
			if got, err := os.ReadFile(entry); err != nil || !bytes.Equal(got, want) {
				t.Errorf("the copy holds %d bytes (%v), not the %d-byte helper", len(got), err, len(want))
			}
		})
	}
}
