//go:build linux

package linux

// #include "helper_linux.h"
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gatedexec/gatedexec/sandbox"
)

// mountKind is what the helper does at one path of its mount namespace.
type mountKind int

const (
	// mountPin bind-mounts a directory onto itself so it becomes a mount
	// point: mount points cannot be renamed or removed (EBUSY), so a
	// protected path cannot be moved aside with its ancestors.
	mountPin mountKind = C.GX_MOUNT_PIN
	// mountReadOnly bind-mounts a path onto itself read-only.
	mountReadOnly mountKind = C.GX_MOUNT_READONLY
	// mountEmptyDir mounts an empty read-only tmpfs over a directory.
	mountEmptyDir mountKind = C.GX_MOUNT_EMPTYDIR
	// mountNullFile bind-mounts /dev/null read-only over a file.
	mountNullFile mountKind = C.GX_MOUNT_NULLFILE
)

// mountOp is one step of the helper's mount plan.
type mountOp struct {
	Kind mountKind
	Path string
}

// mountPlan is the mount plan for p and the placeholder directories that
// had to be created for protect paths that did not exist yet.
//
// Placeholders stay after the command: removing one while another run in
// the same workspace has it mounted would detach that run's read-only
// mount (rmdir of a mount point in another namespace succeeds), and a
// concurrent run may be about to mount it.
func mountPlan(p *sandbox.Profile) (ops []mountOp, created []string, err error) {
	pinned := map[string]bool{}
	planned := map[string]bool{}
	for _, prot := range p.Protect {
		root := outermostWriteRoot(p.Write, prot)
		if root == "" {
			// Not inside a writable path: Landlock already makes it read-only.
			continue
		}
		if coveringPlanned(planned, prot) {
			continue // an ancestor is already mounted read-only
		}
		target := prot
		if _, err := os.Lstat(prot); os.IsNotExist(err) {
			// A mount needs an existing target. An empty directory the
			// command cannot write, rename or remove stands in for the
			// outermost missing component, so that nothing that exists
			// becomes read-only and the host keeps no odd debris: in a
			// workspace without .git, ".git/config" is held by an empty
			// .git, which a later `git init` fills in, not by a directory
			// named config, which would break it.
			if _, err := os.Lstat(root); err != nil {
				continue // the write root is missing: nothing there is writable
			}
			target = outermostMissing(root, prot)
			made, err := mkdirRecord(target)
			created = append(created, made...)
			if err != nil {
				return nil, created, fmt.Errorf("protect %s: %w", prot, err)
			}
		} else if err != nil {
			return nil, created, fmt.Errorf("protect %s: %w", prot, err)
		}
		if planned[target] {
			continue
		}
		planned[target] = true
		for dir := filepath.Dir(target); dir != root && strings.HasPrefix(dir, root+"/"); dir = filepath.Dir(dir) {
			pinned[dir] = true
		}
		ops = append(ops, mountOp{Kind: mountReadOnly, Path: target})
	}
	pins := make([]string, 0, len(pinned))
	for d := range pinned {
		pins = append(pins, d)
	}
	// Outer directories first, so inner mounts land on top of them.
	sort.Slice(pins, func(i, j int) bool { return len(pins[i]) < len(pins[j]) })
	pinOps := make([]mountOp, 0, len(pins))
	for _, d := range pins {
		pinOps = append(pinOps, mountOp{Kind: mountPin, Path: d})
	}
	ops = append(pinOps, ops...)
	for _, h := range p.Hide {
		st, err := os.Stat(h)
		if err != nil {
			continue // nothing to hide; Landlock still decides about creating it
		}
		if st.IsDir() {
			ops = append(ops, mountOp{Kind: mountEmptyDir, Path: h})
		} else {
			ops = append(ops, mountOp{Kind: mountNullFile, Path: h})
		}
	}
	return ops, created, nil
}

// outermostWriteRoot returns the shortest Write path that contains path,
// or "" if none does.
func outermostWriteRoot(write []string, path string) string {
	best := ""
	for _, w := range write {
		if (path == w || strings.HasPrefix(path, strings.TrimSuffix(w, "/")+"/")) && (best == "" || len(w) < len(best)) {
			best = w
		}
	}
	return best
}

// coveringPlanned reports whether path or one of its ancestors is planned.
func coveringPlanned(planned map[string]bool, path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		if planned[p] {
			return true
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

// outermostMissing returns the first component of path below root that
// does not exist, or path itself when every component exists (a concurrent
// run has just made it).
func outermostMissing(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	dir := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, c)
		if _, err := os.Lstat(dir); err != nil {
			return dir
		}
	}
	return path
}

// mkdirRecord makes dir and returns it, or nothing when a concurrent run
// made it first.
func mkdirRecord(dir string) ([]string, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, nil
		}
		return nil, err
	}
	return []string{dir}, nil
}
