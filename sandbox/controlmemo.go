package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"
)

// controlMemo is what controlPaths found of one repository, with the
// lstat of every path it looked at on the way, each taken before the
// path was read or listed: while every one of those paths is as it was,
// a file's content and a directory's entries included (both move its
// change time), controlPaths would find the same. The scan after a run
// takes the scan before's list on that word (unchanged) instead of
// reading every config and directory again: most runs change none.
type controlMemo struct {
	gitdir bool
	paths  []string
	inputs []controlInput
	// opaque marks a list read through a link (a linked .git or config,
	// a workspace below a link), which the lstats do not vouch for.
	opaque bool
}

// controlInput is one path a controlMemo looked at, as its lstat found
// it: the error's number, or the file's device, inode, type and change
// time. A directory whose entries were not read (listed) was only gone
// through, to a path looked at itself, or checked to be one: its
// device, inode and type are all it vouches for (a .git directory's
// change time moves with every commit).
type controlInput struct {
	path     string
	errno    syscall.Errno
	dev, ino uint64
	typ      fs.FileMode
	ctime    time.Time
	listed   bool
}

// readControl reads r's control files (controlPaths) into a set whose
// lstats are those of every path looked at on the way, in the workspace
// root.
func (r gitRepo) readControl(root string) (*gitPaths, error) {
	g := &gitPaths{}
	var err error
	if r.gitdir {
		err = g.gitDir(r.path, root)
	} else {
		err = g.worktree(filepath.Dir(r.path), root)
	}
	if err != nil {
		return nil, err
	}
	// A .git directory changes with every commit, a .git file or link
	// only when it is pointed elsewhere.
	if fi, err := g.lstat(r.path); err == nil && !fi.IsDir() {
		g.add(r.path)
	}
	return g, nil
}

// memo is what g, read for a repository found as gitdir (readControl),
// found and looked at.
func (g *gitPaths) memo(gitdir bool) controlMemo {
	m := controlMemo{gitdir: gitdir, paths: g.list, opaque: g.opaque}
	for p, l := range g.lstats {
		_, listed := g.listed[p]
		in, ok := newControlInput(p, l.fi, l.err, listed)
		if !ok {
			m.opaque = true
			break
		}
		m.inputs = append(m.inputs, in)
	}
	return m
}

// newControlInput is the controlInput of path from its lstat (fi, err);
// false for an error without a number to compare.
func newControlInput(path string, fi fs.FileInfo, err error, listed bool) (controlInput, bool) {
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) || errno == 0 {
			return controlInput{}, false
		}
		return controlInput{path: path, errno: errno}, true
	}
	return controlInput{path: path, dev: devOf(fi), ino: inodeOf(fi), typ: fi.Mode().Type(), ctime: ctimeOf(fi), listed: listed}, true
}

// unchanged reports whether controlPaths would find what m holds for a
// repository found as gitdir (a git directory rather than a .git entry):
// every path m looked at is as it was, and was last changed before since,
// the start of the scan m was made in (stampedBefore): a change in that
// tick of the file system's clock may have left its change time as it
// was. The lstats it takes are kept in now.
func (m controlMemo) unchanged(gitdir bool, since time.Time, now *pathSet) bool {
	if m.opaque || m.gitdir != gitdir {
		return false
	}
	for _, in := range m.inputs {
		fi, err := now.lstat(in.path)
		now, ok := newControlInput(in.path, fi, err, in.listed)
		if !ok || !in.same(now, since) {
			return false
		}
	}
	return true
}

// same reports whether b, a path's lstat now, is what in found: the same
// error, or the same file, unchanged since before since; a directory
// whose entries were not read the same directory.
func (in controlInput) same(b controlInput, since time.Time) bool {
	if in.errno != 0 || b.errno != 0 {
		return in.errno == b.errno
	}
	if in.dev != b.dev || in.ino != b.ino || in.typ != b.typ {
		return false
	}
	if in.typ == fs.ModeDir && !in.listed {
		return true
	}
	return in.ctime.Equal(b.ctime) && stampedBefore(in.ctime, since)
}
