package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
)

// placeFlags are the -C/--cwd and -w/--workspace flags shared by the
// commands that run or judge a command somewhere.
type placeFlags struct {
	cwd       string
	workspace string
}

func (f *placeFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.cwd, "cwd", "C", "", "directory to run the command in (default: current directory)")
	fs.StringVarP(&f.workspace, "workspace", "w", "", "workspace directory (default: git top-level of cwd, else cwd)")
}

// place is a resolved working directory and workspace, both absolute and
// with symlinks evaluated so that sandbox rules name real paths.
type place struct {
	Cwd       string
	Workspace string
}

// resolve turns the flags into absolute, symlink-free directories.
func (f *placeFlags) resolve() (place, error) {
	cwd := f.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return place{}, fmt.Errorf("current directory: %w", err)
		}
		cwd = wd
	}
	cwd, err := realDir(cwd)
	if err != nil {
		return place{}, withCode(exitUsage, fmt.Errorf("--cwd: %w", err))
	}
	if f.workspace == "" {
		// An ancestor of the resolved cwd is itself resolved: no second
		// walk of its path is needed.
		ws := gitTopLevel(cwd)
		if ws == "" {
			ws = cwd
		}
		return place{Cwd: cwd, Workspace: ws}, nil
	}
	ws, err := realDir(f.workspace)
	if err != nil {
		return place{}, withCode(exitUsage, fmt.Errorf("--workspace: %w", err))
	}
	return place{Cwd: cwd, Workspace: ws}, nil
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
// when dir is not inside a git work tree or git is not installed. It walks
// up looking for .git rather than running git, which keeps it off the
// start-up path's process count.
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
