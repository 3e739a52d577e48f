//go:build linux

package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHolderCleanup (issue 11 item 18): the empty directories that hold
// missing protect paths (.git, .gatedexec in a workspace without .git) are
// gone after the runs, also concurrent ones, so a host `git init` works
// (their paths at once, the holders set aside for the exit soon after);
// in a directory the user may not write, the run does not fail for want
// of one.
func TestHolderCleanup(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.LandlockABI > 0, "landlock")
	requireFeature(t, h.Host.UserNS && h.Host.MountNS, "user and mount namespaces")
	f, _ := unprivileged(t, buildProbe(t))
	base := filepath.Dir(f.ws)
	run := func(dir string, argv ...string) (string, int) {
		bin := gatedexecBin
		if f.bin != "" {
			bin = f.bin
		}
		cmd := exec.Command(bin, append([]string{"sandbox", "-p", "workspace-write", "-C", dir, "-w", dir, "--"}, argv...)...)
		cmd.Env = append(os.Environ(), "HOME="+f.home)
		if f.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: f.cred}
		}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	chown := func(p string) {
		if f.cred != nil {
			if err := os.Lchown(p, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
	}

	plain := filepath.Join(base, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	chown(plain)
	mustWrite(t, filepath.Join(plain, "mine"), "user file\n")
	chown(filepath.Join(plain, "mine"))
	for range 2 {
		if out, code := run(plain, "true"); code != 0 {
			t.Fatalf("run in a workspace without .git: exit %d\n%s", code, out)
		}
	}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			// The protection holds while the holder is there.
			out, code := run(plain, "sh", "-c", "sleep 0.3; mkdir -p .git/hooks")
			if code == 0 {
				t.Errorf("concurrent run %d made .git/hooks:\n%s", i, out)
			}
		})
	}
	wg.Wait()
	// The holders' paths are free once the runs have exited; the holders
	// set aside for their exits to remove (gatedexec-removing-*) are gone
	// soon after.
	for _, p := range []string{".git", ".gatedexec"} {
		if _, err := os.Lstat(filepath.Join(plain, p)); !os.IsNotExist(err) {
			t.Errorf("after the runs %s is still there: %v", p, err)
		}
	}
	var names []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ents, err := os.ReadDir(plain)
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if slices.Equal(names, []string{"mine"}) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(names, []string{"mine"}) {
		t.Errorf("10 s after the runs the workspace holds %v, want only the user's file", names)
	}
	if out, err := exec.Command("git", "init", "-q", plain).CombinedOutput(); err != nil {
		t.Errorf("host git init after the runs: %v\n%s", err, out)
	}

	// An empty .git of the user's stays.
	own := filepath.Join(base, "own")
	for _, d := range []string{own, filepath.Join(own, ".git")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		chown(d)
	}
	if out, code := run(own, "true"); code != 0 {
		t.Fatalf("run with an empty .git: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(own, ".git")); err != nil {
		t.Errorf("the user's empty .git was removed: %v", err)
	}

	if f.cred == nil {
		return // a directory the current user cannot write needs another owner
	}
	ro := filepath.Join(base, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(ro, "file"), "x\n")
	if out, code := run(ro, "cat", "file"); code != 0 || out != "x\n" {
		t.Errorf("run in a read-only directory: exit %d, want 0\n%s", code, out)
	}
}
