package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/internal/snapshot"
)

// maxLinks bounds the symlinks followed resolving one path, as Linux's
// own limit does.
const maxLinks = 40

// resolveRootOnly resolves the absolute path one component at a time, as
// the kernel does, and fails unless every directory it passes through and
// every symlink it follows is root's and writable by nobody else (a
// directory passed through may be sticky instead), and the file it ends
// at is root's and writable by nobody else. It returns the path resolved.
//
// Checking the ancestors of filepath.EvalSymlinks's result would miss a
// link that lives in a directory someone else can write: they could point
// it elsewhere after the check.
func resolveRootOnly(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: not an absolute path", path)
	}
	todo := components(path)
	cur, links := "/", 0
	if err := rootOnly(cur, true); err != nil {
		return "", err
	}
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		if c == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if err := rootOnlyInfo(next, st, true); err != nil {
			return "", err
		}
		if st.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: more than %d symbolic links", path, maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		// A relative target is resolved from the link's directory, cur.
		todo = append(components(target), todo...)
	}
	// What the path names is held to the stricter rule of a file: even a
	// sticky directory is refused there.
	return cur, rootOnly(cur, false)
}

// components splits a path into its names, without empty ones and ".".
func components(path string) []string {
	var out []string
	for _, c := range strings.Split(path, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// checkTree fails unless everything under dir (resolved, root-only
// already) is root's and writable by nobody else, following symlinks as
// resolveRootOnly does and checking the trees of those that point at
// directories; n counts the entries seen, bounded as a snapshot is, so
// that a link loop ends.
func checkTree(dir string, n *int) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		if *n++; *n > snapshot.MaxEntries {
			return fmt.Errorf("%s: more than %d entries", dir, snapshot.MaxEntries)
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return rootOnly(p, false)
		}
		target, err := resolveRootOnly(p)
		if err != nil {
			return err
		}
		if st, err := os.Stat(target); err == nil && st.IsDir() {
			return checkTree(target, n)
		}
		return err
	})
}
