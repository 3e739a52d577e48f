package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestControlMemo: the scan after a run takes the scan before's control
// files of a repository (controlMemo) only while they are what reading
// them again finds: every change to what they were read from (a config,
// an included file, a file or directory made where git would look, a
// link) makes it read them again, and a run's ordinary writes, to the
// work tree and to .git itself, do not.
func TestControlMemo(t *testing.T) {
	requireGit(t)
	write := func(t *testing.T, ws, rel, s string) { writeFile(t, filepath.Join(ws, rel), s) }
	// linkHook makes the pre-commit hook a link to scripts/pre-commit.sh.
	linkHook := func(t *testing.T, ws string) {
		if err := os.Symlink("../../scripts/pre-commit.sh", filepath.Join(ws, ".git", "hooks", "pre-commit")); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name           string
		before, during func(t *testing.T, ws string)
		reused         bool
	}{
		{"nothing", nil, func(*testing.T, string) {}, true},
		{"work tree and .git written", nil, func(t *testing.T, ws string) {
			write(t, ws, "a", "x")
			write(t, ws, ".git/index.lock", "")
			write(t, ws, ".git/objects/ab/cdef", "x")
		}, true},
		{"hooks path set", func(t *testing.T, ws string) {
			write(t, ws, "tools/hooks/pre-commit", "#!/bin/sh\n")
		}, func(t *testing.T, ws string) {
			gitInit(t, ws, "config", "core.hooksPath", "tools/hooks")
		}, false},
		{"config.worktree made", nil, func(t *testing.T, ws string) {
			write(t, ws, ".git/config.worktree", "[core]\n\thooksPath = h\n")
		}, false},
		{"commondir made", nil, func(t *testing.T, ws string) {
			write(t, ws, ".git/commondir", "../other\n")
		}, false},
		{"included file rewritten in place", func(t *testing.T, ws string) {
			write(t, ws, "inc.cfg", "")
			write(t, ws, "inc-hooks/pre-commit", "#!/bin/sh\n")
			gitInit(t, ws, "config", "include.path", "../inc.cfg")
		}, func(t *testing.T, ws string) {
			f, err := os.OpenFile(filepath.Join(ws, "inc.cfg"), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("[core]\n\thooksPath = inc-hooks\n")
			f.Close()
		}, false},
		{"submodule git dir made", nil, func(t *testing.T, ws string) {
			write(t, ws, ".git/modules/sub/config", "[core]\n")
		}, false},
		{"worktree made", nil, func(t *testing.T, ws string) {
			write(t, ws, ".git/worktrees/w/gitdir", "/x/.git\n")
		}, false},
		{"hook made a link", func(t *testing.T, ws string) {
			write(t, ws, "scripts/pre-commit.sh", "#!/bin/sh\n")
		}, linkHook, false},
		{"linked hook's target replaced", func(t *testing.T, ws string) {
			write(t, ws, "scripts/pre-commit.sh", "#!/bin/sh\n")
			linkHook(t, ws)
		}, func(t *testing.T, ws string) {
			os.Remove(filepath.Join(ws, "scripts", "pre-commit.sh"))
			if err := os.Symlink("../elsewhere", filepath.Join(ws, "scripts", "pre-commit.sh")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"info made a link", nil, func(t *testing.T, ws string) {
			os.RemoveAll(filepath.Join(ws, ".git", "info"))
			os.Mkdir(filepath.Join(ws, "info2"), 0o755)
			if err := os.Symlink("../info2", filepath.Join(ws, ".git", "info")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{".git a link", func(t *testing.T, ws string) {
			// Read through a link the lstats do not vouch for: never
			// taken on their word.
			if err := os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, "real.git")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real.git", filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
		}, func(*testing.T, string) {}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, g := scanRepo(t, c.before)
			c.during(t, ws)
			var r gitRepo
			for _, found := range walkReposNow(ws) {
				if filepath.Base(found.path) == ".git" && filepath.Dir(found.path) == ws {
					r = found
				}
			}
			if r.path == "" {
				t.Fatal("no repository at the workspace's root")
			}
			m, ok := g.control[r.path]
			if !ok {
				t.Fatalf("the scan before kept no control files of %s", r.path)
			}
			reused := m.unchanged(r.gitdir, g.since, &pathSet{})
			if reused != c.reused {
				t.Errorf("unchanged = %v, want %v", reused, c.reused)
			}
			want, err := r.controlPaths(ws)
			if err != nil {
				t.Fatal(err)
			}
			if reused && !slices.Equal(m.paths, want) {
				t.Errorf("kept %q, read again %q", m.paths, want)
			}
			// GitTamper goes by the same judgement, and finds what it
			// finds reading them again.
			got, _, _ := g.GitTamper()
			// A git directory the link leads to is a repository of
			// its own, read through no link.
			wantReused := len(g.repos) - 1
			if c.reused {
				wantReused++
			}
			if g.reused != wantReused {
				t.Errorf("GitTamper reused %d lists, want %d", g.reused, wantReused)
			}
			g.control = nil
			if again, _, _ := g.GitTamper(); !slices.Equal(got, again) {
				t.Errorf("GitTamper = %q, reading every list again %q", got, again)
			}
		})
	}
}

// scanRepo makes a workspace holding a repository, sets it up with before
// (nil for nothing) and scans it as the scan before a run does: the set-up
// older than the scan, and what follows a tick of the file system's
// coarse clock after it.
func scanRepo(t *testing.T, before func(t *testing.T, ws string)) (string, *GitRepos) {
	t.Helper()
	ws := t.TempDir()
	gitInit(t, ws, "init", "-q")
	if before != nil {
		before(t, ws)
	}
	time.Sleep(10 * time.Millisecond)
	g := scanGitRepos(ws, "", time.Time{})
	time.Sleep(10 * time.Millisecond)
	return ws, g
}

// walkReposNow returns the repositories under root as a scan finds them.
func walkReposNow(root string) []gitRepo {
	var repos []gitRepo
	walkRepos(root, true, nil, nil, time.Time{}, func(r gitRepo) { repos = append(repos, r) })
	return repos
}
