//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestGitTamperUnlistable: a directory the caller cannot list but can go
// through hides a repository from a scan but not from git, which enters
// it by name: one made or changed during the run is reported as not
// scanned, and the names git would try in it are tried.
func TestGitTamperUnlistable(t *testing.T) {
	requireGit(t)
	for _, c := range []struct {
		name           string
		before, during func(t *testing.T, ws string)
		want           []string // relative to the workspace
		unscanned      []string
	}{
		{"searchable, made", nil, func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "d/r")
			chmod(t, filepath.Join(ws, "d"), 0o311)
		}, []string{"d"}, []string{"d"}},
		{"searchable, changed", func(t *testing.T, ws string) {
			os.Mkdir(filepath.Join(ws, "d"), 0o755)
		}, func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "d/r")
			chmod(t, filepath.Join(ws, "d"), 0o311)
		}, []string{"d"}, []string{"d"}},
		{"searchable, unchanged: reported on every run", func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "d/r")
			chmod(t, filepath.Join(ws, "d"), 0o311)
		}, func(t *testing.T, ws string) {}, []string{"d"}, []string{"d"}},
		{"searchable, a repository below it changed", func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "d/sub")
			chmod(t, filepath.Join(ws, "d"), 0o311)
		}, func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, "d", "sub", ".git", "config"), "[core]\n\tfsmonitor = touch PWNED\n")
		}, []string{"d"}, []string{"d"}},
		{"searchable work tree, config changed", func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "d")
			chmod(t, filepath.Join(ws, "d"), 0o311)
		}, func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, "d", ".git", "config"), "[core]\n\tfsmonitor = touch PWNED\n")
		}, []string{"d", "d/.git/config"}, []string{"d"}},
		{"searchable bare repository, made", func(t *testing.T, ws string) {
			os.Mkdir(filepath.Join(ws, "d"), 0o755)
		}, func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "--bare", "d/r.git")
			chmod(t, filepath.Join(ws, "d", "r.git"), 0o311)
		}, []string{"d/r.git"}, nil},
		{"the workspace itself made unlistable", nil, func(t *testing.T, ws string) {
			chmod(t, ws, 0o311)
			t.Cleanup(func() { chmod(t, ws, 0o755) })
		}, []string{"."}, []string{"."}},
		{"not searchable: nor for git", nil, func(t *testing.T, ws string) {
			gitInit(t, ws, "init", "-q", "d/r")
			chmod(t, filepath.Join(ws, "d"), 0o000)
		}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			chmod(t, filepath.Dir(ws), 0o755)
			gitInit(t, ws, "init", "-q")
			if c.before != nil {
				c.before(t, ws)
			}
			chownNobody(t, ws)
			var before *GitRepos
			asUnprivileged(t, func() { before = scanGitRepos(ws, "", time.Time{}) })
			time.Sleep(10 * time.Millisecond) // ctime granularity on coarse clocks
			c.during(t, ws)
			chownNobody(t, ws)
			t.Cleanup(func() { chmod(t, filepath.Join(ws, "d"), 0o755) })
			var got, unscanned []string
			var complete bool
			asUnprivileged(t, func() { got, unscanned, complete = before.GitTamper() })
			if want := abs(ws, c.want); !slices.Equal(got, want) || !complete {
				t.Errorf("GitTamper = %q, %v, want %q", got, complete, want)
			}
			if want := abs(ws, c.unscanned); !slices.Equal(unscanned, want) {
				t.Errorf("unscanned = %q, want %q", unscanned, want)
			}
		})
	}
}

// chownNobody gives what root made in the workspace to the user
// asUnprivileged runs as, when the test runs as root; what is that user's
// already is left alone, its inode change time too.
func chownNobody(t *testing.T, ws string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	filepath.Walk(ws, func(p string, fi os.FileInfo, err error) error {
		if st, ok := fi.Sys().(*syscall.Stat_t); err == nil && ok && st.Uid != nobody {
			os.Lchown(p, nobody, nobody)
		}
		return nil
	})
}
