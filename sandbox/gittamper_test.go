package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGitTamperGitDirs: a git directory is found by what git looks for
// (HEAD with objects/ and refs/, or a commondir), whatever its name and
// wherever it lies in the workspace.
func TestGitTamperGitDirs(t *testing.T) {
	requireGit(t)
	for _, c := range []struct {
		name           string
		before, during func(t *testing.T, ws string)
		want           []string // relative to the workspace
	}{
		{"bare repository made", nil, func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "--bare", "docs")
		}, []string{"docs"}},
		{"bare repository made deep", nil, func(t *testing.T, ws string) {
			os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755)
			gitInit(t, ws, "init", "-q", "--bare", "a/b/c")
		}, []string{"a/b/c"}},
		{"bare repository's config changed", func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "--bare", "docs")
		}, func(t *testing.T, ws string) {
			gitInit(t, ws, "-C", "docs", "config", "core.fsmonitor", "touch PWNED")
		}, []string{"docs/config"}},
		{"bare repository's hook made", func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "--bare", "docs")
		}, func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, "docs", "hooks", "post-update"), "#!/bin/sh\n")
		}, []string{"docs/hooks"}},
		{"bare repository's hook rewritten in place", func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "--bare", "docs")
			writeFile(t, filepath.Join(ws, "docs", "hooks", "post-update"), "#!/bin/sh\n")
		}, func(t *testing.T, ws string) {
			// The directory is unchanged: the scan after goes by the
			// names the scan before listed in it.
			f, err := os.OpenFile(filepath.Join(ws, "docs", "hooks", "post-update"), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("#!/bin/sh\ntouch PWNED\n")
			f.Close()
		}, []string{"docs/hooks"}},
		{"git dir with a commondir", nil, func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, "x", "HEAD"), "ref: refs/heads/main\n")
			writeFile(t, filepath.Join(ws, "x", "commondir"), "../.git\n")
		}, []string{"x"}},
		{"bare repository used as before", func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "--bare", "docs")
		}, func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, "docs", "objects", "ab", "cdef"), "x")
			writeFile(t, filepath.Join(ws, "docs", "refs", "heads", "main"), "0000\n")
		}, nil},
		{"HEAD alone is no repository", nil, func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, "y", "HEAD"), "x")
			os.Mkdir(filepath.Join(ws, "y", "refs"), 0o755)
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			gitInit(t, ws, "init", "-q")
			if c.before != nil {
				c.before(t, ws)
			}
			before := scanGitRepos(ws, "", time.Time{})
			time.Sleep(10 * time.Millisecond) // ctime granularity on coarse clocks
			c.during(t, ws)
			var want []string
			for _, w := range c.want {
				want = append(want, filepath.Join(ws, w))
			}
			if got, _, complete := before.GitTamper(); !slices.Equal(got, want) || !complete {
				t.Errorf("GitTamper = %q, %v, want %q", got, complete, want)
			}
		})
	}
}

func abs(ws string, rel []string) []string {
	var out []string
	for _, r := range rel {
		out = append(out, filepath.Join(ws, r))
	}
	return out
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestGitTamperSameTick: a control file made, or changed in place, in the
// same tick of the file system's clock as the scan before the run is
// reported: its change time can be earlier than the time the scan
// started, read from a finer clock (ext4 stamps from the kernel's coarse
// clock, 4 ms a tick at HZ=250), so the scan notes what each control file
// was instead. Judged by time.Now() against change times, each of these
// went unreported.
func TestGitTamperSameTick(t *testing.T) {
	requireGit(t)
	ws := t.TempDir()
	gitInit(t, ws, "init", "-q")
	hook := filepath.Join(ws, ".git", "hooks", "pre-commit")
	writeFile(t, hook, "#!/bin/sh\n")
	time.Sleep(10 * time.Millisecond) // what the set-up made is older than the scan
	for i := range 20 {
		before := scanGitRepos(ws, "", time.Time{})
		// At once: in the scan's tick.
		worktree := filepath.Join(ws, ".git", "config.worktree")
		writeFile(t, worktree, "[core]\nfsmonitor = x\n")
		f, err := os.OpenFile(hook, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("#!/bin/sh\ntouch x\n")
		f.Close()
		want := []string{filepath.Join(ws, ".git", "config.worktree"), filepath.Join(ws, ".git", "hooks")}
		if got, _, _ := before.GitTamper(); !slices.Equal(got, want) {
			t.Fatalf("round %d: GitTamper = %q, want %q", i, got, want)
		}
		os.Remove(worktree)
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGitWalkReuse: the walk after a run reads again only the directories
// whose change time moved, and still finds a repository made deep in a
// tree whose other directories it took from the walk before; on a tree
// of prefetchMin directories or more too, where it takes their stamps
// ahead of itself, in parallel (prefetchStamps).
func TestGitWalkReuse(t *testing.T) {
	requireGit(t)
	for _, dirs := range []int{50, prefetchMin} {
		t.Run(fmt.Sprint(dirs), func(t *testing.T) {
			ws := t.TempDir()
			gitInit(t, ws, "init", "-q")
			for i := range dirs {
				if err := os.MkdirAll(filepath.Join(ws, "src", fmt.Sprint(i), "pkg"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(10 * time.Millisecond) // older than the scan's tick
			before := scanGitRepos(ws, "", time.Time{})
			time.Sleep(10 * time.Millisecond)
			deep := filepath.Join(ws, "src", "7", "pkg")
			gitInit(t, deep, "init", "-q", "--bare", "evil")
			if err := os.RemoveAll(filepath.Join(ws, "src", "9")); err != nil {
				t.Fatal(err)
			}
			w := &repoWalk{found: func(gitRepo) {}, after: true, prev: before.listed, since: before.since}
			if len(before.listed) >= prefetchMin {
				w.stamps = prefetchStamps(before.listed)
				for path := range before.listed {
					ino, ctime, _, err := pathStamp(path)
					if s := w.stamps[path]; s.ino != ino || !s.ctime.Equal(ctime) || (s.err == nil) != (err == nil) {
						t.Fatalf("%s: prefetched %+v, pathStamp %d %v %v", path, s, ino, ctime, err)
					}
				}
			}
			if err := w.dir(ws, true); err != nil {
				t.Fatal(err)
			}
			// pkg of 7, the repository made in it, and src (9 is gone
			// from it); a walk that reuses nothing reads all of them.
			if w.reads > 3 {
				t.Errorf("the walk after read %d directories, want only the changed ones", w.reads)
			}
			if got, _, _ := before.GitTamper(); !slices.Equal(got, []string{filepath.Join(deep, "evil")}) {
				t.Errorf("GitTamper = %q, want the bare repository made", got)
			}
		})
	}
}

// TestListingGone: only a directory that is no longer one is passed over
// by the walk; any other error reading it (EIO, EMFILE, a mode that
// forbids listing) leaves what is below it unread, which the scan after
// a run must report rather than take for an empty tree.
func TestListingGone(t *testing.T) {
	for _, c := range []struct {
		err  error
		gone bool
	}{
		{syscall.ENOENT, true},
		{syscall.ENOTDIR, true},
		{syscall.ELOOP, true},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}, true},
		{syscall.EIO, false},
		{syscall.EMFILE, false},
		{syscall.EACCES, false},
		{syscall.ENOMEM, false},
	} {
		if got := listingGone(c.err); got != c.gone {
			t.Errorf("listingGone(%v) = %v, want %v", c.err, got, c.gone)
		}
	}
}

// TestStampedBefore: a change time with a fraction of a second is judged
// as it is; one in whole seconds, which a file system rounding change
// times down (FAT, ext3) may have given a change made after since, only
// counts as before since when coarseStamp earlier.
func TestStampedBefore(t *testing.T) {
	since := time.Unix(100, 500)
	for _, tt := range []struct {
		ctime          time.Time
		before, recent bool
	}{
		{time.Unix(100, 499), true, false},
		{time.Unix(100, 500), false, false},
		{time.Unix(99, 0), false, true}, // a change at 100.0000005 rounded down
		{time.Unix(98, 0), true, false}, // FAT rounds to 2 s: a change after since is stamped 100
		{time.Unix(97, 0), true, false},
		{time.Unix(101, 0), false, true},
	} {
		if got := stampedBefore(tt.ctime, since); got != tt.before {
			t.Errorf("stampedBefore(%v) = %v, want %v", tt.ctime, got, tt.before)
		}
		if got := roundedRecent(tt.ctime, since); got != tt.recent {
			t.Errorf("roundedRecent(%v) = %v, want %v", tt.ctime, got, tt.recent)
		}
	}
}
