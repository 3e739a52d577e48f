package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/internal/plainfile"
)

// namesWorkTree reports whether gitdir is a git directory that names the
// work tree workspace as its own, the way git records it: a linked
// worktree's git dir holds a gitdir file with the path of the work tree's
// .git, a submodule's (and a repository's with core.worktree) config says
// core.worktree. A git dir that says neither — a .git file the command
// wrote pointing at another repository, at the home directory or at "/",
// or a repository made with --separate-git-dir, which records nothing — is
// not the workspace's, as far as writes outside it go.
func namesWorkTree(gitdir, workspace string) bool {
	if !isGitDir(gitdir) {
		return false
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return false
	}
	if b, err := readSmall(filepath.Join(gitdir, "gitdir")); err == nil {
		if p := strings.TrimSpace(string(b)); p != "" && samePath(joinFrom(gitdir, p), filepath.Join(ws, ".git")) {
			return true
		}
	}
	if b, err := readSmall(filepath.Join(gitdir, "config")); err == nil {
		for _, kv := range parseGitConfig(b) {
			if kv.key == "core.worktree" && kv.value != "" && samePath(joinFrom(gitdir, kv.value), ws) {
				return true
			}
		}
	}
	return false
}

// isGitDir reports whether dir is a git directory by gitMarks' rule,
// looking its marks up by name rather than listing it.
func isGitDir(dir string) bool {
	var m gitMarks
	for _, name := range []string{"HEAD", "objects", "refs", "commondir"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			m.see(name)
		}
	}
	return m.gitDir()
}

// readSmall reads a regular file of a git dir, up to gitMaxConfigSize
// bytes. A command can leave a FIFO or a device where a git file is
// looked for: opened without waiting and refused (plainfile.OpenRegular),
// it reads as missing rather than holding the scan, and gatedexec, until
// a writer comes.
func readSmall(path string) ([]byte, error) {
	f, _, err := plainfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, gitMaxConfigSize))
}

// joinFrom returns p, relative to dir when it is not absolute.
func joinFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// samePath reports whether a and b name the same path once the symlinks
// of both are resolved.
func samePath(a, b string) bool {
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		return false
	}
	rb, err := filepath.EvalSymlinks(b)
	return err == nil && ra == rb
}
