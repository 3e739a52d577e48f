//go:build linux

package linux

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
)

// TestHoldMountsConcurrent plans and releases the mounts of many runs at
// once in one workspace without .git, as 200 concurrent `gatedexec run`s
// do: a run ending removes the holders it made while others are planning
// around them. No run may fail, every target a run holds must exist while
// it holds it, and once all have ended no holder is left behind. With
// each run's holders left to an exit (Runner.LeaveToExit), what is left
// is only the holders set aside for those exits, each empty.
func TestHoldMountsConcurrent(t *testing.T) {
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("leave=%v", leave), func(t *testing.T) { holdMountsConcurrent(t, leave) })
	}
}

func holdMountsConcurrent(t *testing.T, leave bool) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Profile{
		Name:  "workspace-write",
		Write: []string{ws},
		Protect: []string{
			filepath.Join(ws, ".git", "hooks"),
			filepath.Join(ws, ".git", "config"),
			filepath.Join(ws, ".gatedexec"),
		},
	}
	const workers, runs = 16, 150
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range runs {
				ops, hold, err := holdMounts(p, "")
				if err != nil {
					errs <- err
					return
				}
				if leave {
					hold.leave = &exitunmap.Leave{}
				}
				for _, op := range ops {
					if op.Kind != mountReadOnly {
						continue
					}
					if _, err := os.Lstat(op.Path); err != nil {
						errs <- err
						hold.release(true)
						return
					}
				}
				hold.release(true)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	entries, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !leave || !strings.HasPrefix(e.Name(), asidePrefix) {
			t.Errorf("workspace holds %s after every run ended", e.Name())
			continue
		}
		if !sandbox.IsEmptyDir(filepath.Join(ws, e.Name())) {
			t.Errorf("holder set aside %s is not an empty directory", e.Name())
		}
	}
}

// TestHolderInAnotherRunsHolder: a run that makes its holder inside a
// directory that is another run's holder (.git/hooks in another run's
// .git, which was not empty when this run planned) holds that directory
// too. The other run, ending, finds it empty before this run's mkdir,
// as a run ending at just that moment can, and must not remove it or
// set it aside with this run's holder in it, which would be left behind;
// this run removes both when it ends.
func TestHolderInAnotherRunsHolder(t *testing.T) {
	ws, p := holderProfile(t)
	gitdir := filepath.Join(ws, ".git")
	_, other, err := holdMounts(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if !other.holds(gitdir) {
		t.Fatalf("the first run holds %v, want %s among them", heldNames(other), gitdir)
	}
	// Not empty: the next run makes .git/hooks in it.
	mustWriteFile(t, filepath.Join(gitdir, "HEAD"))
	_, this, err := holdMounts(&sandbox.Profile{Name: "workspace-write", Write: []string{ws},
		Protect: []string{filepath.Join(gitdir, "hooks")}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !this.holds(filepath.Join(gitdir, "hooks")) || !this.holds(gitdir) {
		t.Fatalf("the second run holds %v, want its .git/hooks and the .git it made it in", heldNames(this))
	}
	// .git as the first run's end can find it, just before the mkdir.
	os.Remove(filepath.Join(gitdir, "HEAD"))
	if err := os.Rename(filepath.Join(gitdir, "hooks"), filepath.Join(ws, "hooks-elsewhere")); err != nil {
		t.Fatal(err)
	}
	other.leave = &exitunmap.Leave{}
	other.release(true)
	if !sandbox.IsEmptyDir(gitdir) {
		t.Fatalf("%s was removed or set aside while another run held it", gitdir)
	}
	if err := os.Rename(filepath.Join(ws, "hooks-elsewhere"), filepath.Join(gitdir, "hooks")); err != nil {
		t.Fatal(err)
	}
	this.release(true)
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		// The first run's .gatedexec, left to an exit that never comes.
		if e.Name() != asidePrefix+".gatedexec" || !sandbox.IsEmptyDir(filepath.Join(ws, e.Name())) {
			t.Errorf("workspace holds %s after both runs ended", e.Name())
		}
	}
}

// heldNames are the paths of the directories h holds.
func heldNames(h *holders) []string {
	var names []string
	for _, f := range h.dirs {
		names = append(names, f.Name())
	}
	return names
}

// holderProfile returns a workspace without .git and a profile whose
// protect paths there are missing: each run of it makes holders.
func holderProfile(t *testing.T) (string, *sandbox.Profile) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws, &sandbox.Profile{Name: "workspace-write", Write: []string{ws},
		Protect: []string{filepath.Join(ws, ".gatedexec"), filepath.Join(ws, ".git", "hooks")}}
}

// TestReleaseClosesRemovedHolders: release removes the holders a run
// made, and the descriptors of those it removed, closed in the
// background, are closed soon after; those of holders it keeps (held by
// another run) are closed when it returns, so that the other run can
// remove them.
func TestReleaseClosesRemovedHolders(t *testing.T) {
	ws, p := holderProfile(t)
	// No collection meanwhile: a file's finalizer would close what
	// release leaves open.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// inWorkspace counts this process's descriptors of paths in ws,
	// removed ones included ("PATH (deleted)").
	inWorkspace := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range ents {
			if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(l, ws+"/") {
				n++
			}
		}
		return n
	}
	_, first, err := holdMounts(p, "")
	if err != nil {
		t.Fatal(err)
	}
	_, second, err := holdMounts(p, "")
	if err != nil {
		t.Fatal(err)
	}
	both := inWorkspace()
	if both == 0 || both%2 != 0 {
		t.Fatalf("the two runs hold %d descriptors in the workspace, want as many each", both)
	}
	// The first to end keeps what the second holds: nothing removed,
	// each of its descriptors closed when it returns.
	first.release(true)
	if got := inWorkspace(); got != both/2 {
		t.Errorf("after the first release %d descriptors are open in the workspace, want the second run's %d", got, both/2)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".gatedexec")); err != nil {
		t.Fatalf("the holder the second run holds was removed: %v", err)
	}
	second.release(true)
	if ents, _ := os.ReadDir(ws); len(ents) != 0 {
		t.Errorf("workspace holds %d entries after the last release, want none", len(ents))
	}
	deadline := time.Now().Add(5 * time.Second)
	for inWorkspace() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d descriptors of removed holders still open", inWorkspace())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestReleaseClosesHoldersSetAside: holders whose removal is left to the
// exit (Runner.LeaveToExit) are renamed aside, not removed, and closing
// them frees nothing: their descriptors are closed when release returns,
// not in the background.
func TestReleaseClosesHoldersSetAside(t *testing.T) {
	ws, p := holderProfile(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// One P: a goroutine release started could run only once this one
	// blocks, so what is open when it returns is what it left open.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_, hold, err := holdMounts(p, "")
	if err != nil {
		t.Fatal(err)
	}
	files := slices.Clone(hold.dirs)
	if len(files) == 0 {
		t.Fatal("no holder made")
	}
	hold.leave = &exitunmap.Leave{}
	hold.release(true)
	for _, f := range files {
		if f.Fd() != ^uintptr(0) {
			t.Errorf("%s: still open when release returned", f.Name())
		}
	}
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), asidePrefix) {
			t.Errorf("%s left in the workspace, want only holders set aside", e.Name())
		}
	}
}

// TestSetAside: a holder whose removal is left to the exit is renamed to
// its name set aside at once, an empty directory of that name left by an
// earlier exit removed first; with the exit full, the holder is removed
// at once; a holder that cannot be renamed stays where it was.
func TestSetAside(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	holder := filepath.Join(ws, ".gatedexec")
	aside := filepath.Join(ws, asidePrefix+".gatedexec")
	mkdirs := func(dirs ...string) {
		t.Helper()
		for _, d := range dirs {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	exists := func(p string) bool {
		_, err := os.Lstat(p)
		return err == nil
	}

	// An earlier exit's, left behind.
	mkdirs(holder, aside)
	if !setAside(holder, &exitunmap.Leave{}) {
		t.Fatal("setAside refused")
	}
	if exists(holder) || !exists(aside) {
		t.Errorf("after setAside: holder there %v, set aside %v; want false, true", exists(holder), exists(aside))
	}
	os.Remove(aside)

	// The exit takes no more: removed now.
	var full exitunmap.Leave
	for full.RemoveDir("/x") {
	}
	mkdirs(holder)
	if !setAside(holder, &full) {
		t.Fatal("setAside refused with the exit full")
	}
	if exists(holder) || exists(aside) {
		t.Errorf("with the exit full: holder there %v, set aside %v; want neither", exists(holder), exists(aside))
	}

	// In the way, and not empty: the holder stays.
	mkdirs(holder, aside)
	mustWriteFile(t, filepath.Join(aside, "user"))
	if setAside(holder, &exitunmap.Leave{}) {
		t.Error("setAside renamed the holder over a directory with a file in it")
	}
	if !exists(holder) || !exists(filepath.Join(aside, "user")) {
		t.Error("a refused setAside moved the holder or what was in its way")
	}
}

func mustWriteFile(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
