package gate

import (
	"fmt"
	"os"
	"path/filepath"
)

// Place is where a command runs: its working directory and its workspace,
// both absolute and with symlinks evaluated so that sandbox rules name
// real paths.
type Place struct {
	Cwd       string
	Workspace string
}

// ResolvePlace turns a working directory ("" is the current one) and a
// workspace ("" is the git top-level of cwd, else cwd) into a Place.
// A path that is not a directory is the caller's error (ErrUsage).
func ResolvePlace(cwd, workspace string) (Place, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Place{}, fmt.Errorf("current directory: %w", err)
		}
		cwd = wd
	}
	cwd, err := realDir(cwd)
	if err != nil {
		return Place{}, usageErr(fmt.Errorf("cwd: %w", err))
	}
	if workspace == "" {
		// An ancestor of the resolved cwd is itself resolved: no second
		// walk of its path is needed.
		ws := gitTopLevel(cwd)
		if ws == "" {
			ws = cwd
		}
		return Place{Cwd: cwd, Workspace: ws}, nil
	}
	ws, err := realDir(workspace)
	if err != nil {
		return Place{}, usageErr(fmt.Errorf("workspace: %w", err))
	}
	return Place{Cwd: cwd, Workspace: ws}, nil
}

// realDir returns dir made absolute with symlinks resolved, or an error if
// it is not a directory.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s: not a directory", dir)
	}
	return real, nil
}

// gitTopLevel returns the git top-level directory containing dir, or ""
// when dir is not inside a git work tree. It walks up looking for .git
// rather than running git, which keeps it off the start-up path's
// process count.
func gitTopLevel(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
