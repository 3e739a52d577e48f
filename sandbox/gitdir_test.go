package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestGitWritable: what a .git file or link names is writable only when
// that git dir names the workspace back, as git records a linked worktree
// or a submodule; a .git a command wrote pointing anywhere else widens
// nothing.
func TestGitWritable(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(base, "main")
	os.Mkdir(main, 0o755)
	gitInit(t, main, "init", "-q")
	gitInit(t, main, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "--allow-empty", "-m", "i")
	wt := filepath.Join(base, "wt")
	gitInit(t, main, "worktree", "add", "-q", wt)
	lib := filepath.Join(base, "lib")
	os.Mkdir(lib, 0o755)
	gitInit(t, lib, "init", "-q")
	gitInit(t, lib, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "--allow-empty", "-m", "l")
	gitInit(t, main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
	sep := filepath.Join(base, "sep")
	gitInit(t, base, "init", "-q", "--separate-git-dir="+filepath.Join(base, "sep.git"), sep)
	other := filepath.Join(base, "other")
	os.Mkdir(other, 0o755)
	gitInit(t, other, "init", "-q")

	// dir makes a workspace whose .git is a file saying text, or a link
	// to target.
	dir := func(name, text, target string) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if target != "" {
			if err := os.Symlink(target, filepath.Join(d, ".git")); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(filepath.Join(d, ".git"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	common := filepath.Join(main, ".git")
	// forged makes a workspace holding a git dir of its own, fake, with a
	// back-pointer to the workspace and other's .git as its commondir,
	// and a .git file naming fake: what a command can write.
	forged := func() string {
		ws := filepath.Join(base, "forged")
		fake := filepath.Join(ws, "fake")
		for _, d := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(fake, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for name, text := range map[string]string{"HEAD": "ref: refs/heads/main\n", "commondir": filepath.Join(other, ".git") + "\n",
			"gitdir": filepath.Join(ws, ".git") + "\n"} {
			if err := os.WriteFile(filepath.Join(fake, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+fake+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return ws
	}
	tests := []struct {
		name, workspace string
		want            []string
	}{
		{"linked worktree", wt, []string{filepath.Join(common, "worktrees", "wt"),
			filepath.Join(common, "objects"), filepath.Join(common, "refs"), filepath.Join(common, "logs")}},
		{"submodule checkout", filepath.Join(main, "vendor", "lib"), []string{filepath.Join(common, "modules", "vendor", "lib")}},
		{"main work tree", main, nil},
		{"separate git dir: nothing names it back", sep, nil},
		{"gitdir: /", dir("root", "gitdir: /\n", ""), nil},
		{"gitdir: a directory that is no git dir", dir("home", "gitdir: "+base+"\n", ""), nil},
		{"gitdir: another repository", dir("another", "gitdir: "+filepath.Join(other, ".git")+"\n", ""), nil},
		{"gitdir: another worktree's git dir", dir("stolen", "gitdir: "+filepath.Join(common, "worktrees", "wt")+"\n", ""), nil},
		{"a git dir of the command's naming another repository's common dir", forged(), nil},
		{"link to another repository", dir("link", "", filepath.Join(other, ".git")), nil},
		{"link to /", dir("linkroot", "", "/"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := GitWritable(tt.workspace)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("GitWritable(%s) = %q, %v; want %q", tt.workspace, got, err, tt.want)
			}
		})
	}
}
