package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
			before := ScanGitRepos(ws)
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
