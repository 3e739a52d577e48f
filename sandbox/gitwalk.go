package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// gitRepo is one repository a scan of the workspace found: a work tree's
// `.git` entry (directory, file or link), or a git directory found by its
// own contents (a bare repository, a separate git dir).
type gitRepo struct {
	path   string
	ino    uint64
	gitdir bool // path is the git directory itself, not a `.git` entry
}

// walkRepos calls found for every repository under root, without entering
// any, and reports whether it read the whole tree (at most GitScanLimit
// entries). Links are not followed: git does not follow them to discover
// a repository either, and one inside the workspace is found where it lies.
//
// A directory the caller cannot list but can go through is no obstacle
// to git, which enters it by a name it is given (`git -C d/r`): the names
// git itself would try there are tried and, when after is set (the scan
// after a run), every such directory is returned in unscanned. Whether
// it changed cannot be judged by its own change time: a repository
// below it changes without touching it.
func walkRepos(root string, after bool, found func(gitRepo)) (unscanned []string, complete bool) {
	w := &repoWalk{found: found, after: after}
	err := w.dir(root, true)
	return w.unscanned, err == nil
}

// repoWalk is the state of one walkRepos.
type repoWalk struct {
	found     func(gitRepo)
	after     bool
	n         int // entries read
	unscanned []string
}

var errScanLimit = errors.New("scan limit")

// dir reads the directory path and goes down into its subdirectories.
func (w *repoWalk) dir(path string, root bool) error {
	d, err := os.Open(path)
	if err != nil {
		if root {
			return err
		}
		w.unlisted(path)
		return nil
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil && root {
		return err
	}
	var m gitMarks
	for _, e := range ents {
		m.see(e.Name())
	}
	if m.gitDir() {
		w.report(path, true)
		return nil
	}
	for _, e := range ents {
		if w.n++; w.n > GitScanLimit {
			return errScanLimit
		}
		p := filepath.Join(path, e.Name())
		switch {
		case e.Name() == ".git":
			w.report(p, false)
		case e.IsDir():
			if err := w.dir(p, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// unlisted judges the directory path, which the caller could not open.
func (w *repoWalk) unlisted(path string) {
	dotgit := filepath.Join(path, ".git")
	_, err := os.Lstat(dotgit)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return // not searchable: git cannot go through it either
	case err == nil:
		w.report(dotgit, false)
	}
	var m gitMarks
	for _, n := range []string{"HEAD", "objects", "refs", "commondir"} {
		if _, err := os.Lstat(filepath.Join(path, n)); err == nil {
			m.see(n)
		}
	}
	if m.gitDir() {
		w.report(path, true)
		return
	}
	if w.after {
		// A work tree found here may hide more repositories below it.
		w.unscanned = append(w.unscanned, path)
	}
}

func (w *repoWalk) report(path string, gitdir bool) {
	if fi, err := os.Lstat(path); err == nil {
		w.found(gitRepo{path: path, ino: inodeOf(fi), gitdir: gitdir})
	}
}

// gitMarks are the entries of a directory by which git takes it for a
// git directory (setup.c's is_git_directory).
type gitMarks struct{ head, objects, refs, commondir bool }

func (m *gitMarks) see(name string) {
	switch name {
	case "HEAD":
		m.head = true
	case "objects":
		m.objects = true
	case "refs":
		m.refs = true
	case "commondir":
		m.commondir = true
	}
}

// gitDir reports whether the directory is a git directory: HEAD, and
// objects/ and refs/ or a commondir naming where they are. Their kinds
// and HEAD's content are not checked: a directory that looks this much
// like a repository is judged as one.
func (m gitMarks) gitDir() bool {
	return m.head && (m.commondir || m.objects && m.refs)
}
