package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestGitScanFIFO: a command can leave a FIFO, which an open for reading
// waits on until a writer comes, wherever git looks for a file. The scans
// after the run, and the next run's look at the workspace's .git
// (GitWritable), report it, or take it as missing, without waiting:
// before, a `mkfifo .git/config.worktree` under workspace-write held
// gatedexec after its command had ended, past SIGTERM.
func TestGitScanFIFO(t *testing.T) {
	requireGit(t)
	mkfifo := func(t *testing.T, path string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	within := func(t *testing.T, what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			// The goroutine stays blocked; the test binary's exit ends it.
			t.Fatalf("%s still waiting after 10 s", what)
		}
	}
	for _, c := range []struct {
		name   string
		before func(t *testing.T, ws string)
		fifo   string // relative to the workspace
		want   []string
	}{
		{"config.worktree", nil, ".git/config.worktree", []string{".git/config.worktree"}},
		{"commondir", nil, ".git/commondir", []string{".git/commondir"}},
		{"config", nil, ".git/config", []string{".git/config"}},
		{"included file", func(t *testing.T, ws string) {
			gitInit(t, ws, "config", "include.path", "../inc.cfg")
		}, "inc.cfg", []string{"inc.cfg"}},
		{"submodule config", func(t *testing.T, ws string) {
			writeFile(t, filepath.Join(ws, ".git", "modules", "sub", "HEAD"), "ref: refs/heads/main\n")
		}, ".git/modules/sub/config", []string{".git/modules/sub/config"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, g := scanRepo(t, c.before)
			p := filepath.Join(ws, c.fifo)
			os.Remove(p)
			mkfifo(t, p)
			var got []string
			within(t, "GitTamper", func() { got, _, _ = g.GitTamper() })
			if want := abs(ws, c.want); !slices.Equal(got, want) {
				t.Errorf("GitTamper = %q, want %q", got, want)
			}
			// The next run's scan before, and its protection's list.
			within(t, "the next scan", func() { scanGitRepos(ws, "", time.Time{}) })
			within(t, "GitControl", func() { GitControl(ws, "") })
		})
	}
	t.Run(".git", func(t *testing.T) {
		ws := t.TempDir()
		mkfifo(t, filepath.Join(ws, ".git"))
		var err error
		within(t, "GitWritable", func() { _, err = GitWritable(ws) })
		if err == nil {
			t.Error("GitWritable took a FIFO .git for a gitdir file")
		}
		within(t, "GitControl", func() { GitControl(ws, "") })
		within(t, "the scan", func() { scanGitRepos(ws, "", time.Time{}).GitTamper() })
	})
}
