package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
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
// any, and reports whether it stayed within GitScanLimit entries; a root
// it cannot read is, after a run, returned in unscanned. Links are not followed: git does not follow them to discover
// a repository either, and one inside the workspace is found where it lies.
//
// A directory the caller cannot list but can go through is no obstacle
// to git, which enters it by a name it is given (`git -C d/r`): the names
// git itself would try there are tried and, when after is set (the scan
// after a run), every such directory is returned in unscanned. Whether
// it changed cannot be judged by its own change time: a repository
// below it changes without touching it.
//
// Every directory read is recorded in listed (nil: not recorded). A
// directory of prev (an earlier walk's record) whose inode and change
// time are what that walk found, and whose change time is before since
// (stampedBefore), is taken from prev instead of read again: a
// directory's change time moves with every entry made, removed or
// renamed in it, and since is no later than the earlier walk's start on
// the clock file times are taken from (coarseNow). The walk after a run
// reads only what changed; reads counts the directories it read.
func walkRepos(root string, after bool, prev, listed map[string]dirListing, since time.Time, found func(gitRepo)) (unscanned []string, complete bool, reads int) {
	w := &repoWalk{found: found, after: after, prev: prev, listed: listed, since: since}
	if len(prev) >= prefetchMin {
		w.stamps = prefetchStamps(prev)
	}
	err := w.dir(root, true)
	if err != nil && !errors.Is(err, errScanLimit) && after && !listingGone(err) {
		// The workspace itself could not be read (a command can take
		// its read permission away): nothing of it was scanned.
		w.unscanned = append(w.unscanned, root)
	}
	return w.unscanned, !errors.Is(err, errScanLimit), w.reads
}

// repoWalk is the state of one walkRepos.
type repoWalk struct {
	found        func(gitRepo)
	after        bool
	n            int // entries read
	unscanned    []string
	prev, listed map[string]dirListing
	since        time.Time
	buf          []byte // readListing's
	reads        int    // directories read, not taken from prev
	// stamps are those of prev's directories, taken ahead of the walk
	// (prefetchStamps), nil for none.
	stamps map[string]dirStamp
}

// dirListing is what a walk needs of one directory's entries: the names
// of its subdirectories, whether it has a .git entry and the marks of a
// git directory, and how many entries it has; with the inode and change
// time it had when read.
type dirListing struct {
	ino     uint64
	ctime   time.Time
	subdirs []string
	dotgit  bool
	marks   gitMarks
	entries int
}

// sameEntries reports whether l and m list the same subdirectories, .git
// entry, git marks and entry count, whenever either was read.
func (l dirListing) sameEntries(m dirListing) bool {
	return l.dotgit == m.dotgit && l.marks == m.marks && l.entries == m.entries && slices.Equal(l.subdirs, m.subdirs)
}

var errScanLimit = errors.New("scan limit")

// dir reads the directory path and goes down into its subdirectories.
func (w *repoWalk) dir(path string, root bool) error {
	l, ok := w.reuse(path)
	if !ok {
		var err error
		if l, err = readListing(path, root, &w.buf); err != nil {
			if root {
				return err
			}
			if !listingGone(err) {
				// Unreadable (a mode that forbids listing, or an I/O
				// error): judged by name, and reported after a run.
				w.unlisted(path)
			}
			return nil
		}
	}
	if !ok {
		w.reads++
	}
	if w.listed != nil {
		w.listed[path] = l
	}
	if l.marks.gitDir() {
		w.report(path, true)
		return nil
	}
	if w.n += l.entries; w.n > GitScanLimit {
		return errScanLimit
	}
	if l.dotgit {
		w.report(filepath.Join(path, ".git"), false)
	}
	for _, name := range l.subdirs {
		if err := w.dir(filepath.Join(path, name), false); err != nil {
			return err
		}
	}
	return nil
}

// listingGone reports whether err, from reading a directory the walk
// found, says there is no directory there any more: removed, or replaced
// by a file or a link, which git does not follow to find a repository.
// Any other error leaves what is below unread, which is not "nothing".
func listingGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP)
}

// reuse returns the earlier walk's listing of path when the directory is
// unchanged since (see walkRepos).
func (w *repoWalk) reuse(path string) (dirListing, bool) {
	l, ok := w.prev[path]
	if !ok {
		return dirListing{}, false
	}
	st, ok := w.stamps[path]
	if !ok {
		st.ino, st.ctime, _, st.err = pathStamp(path)
	}
	ino, ctime, err := st.ino, st.ctime, st.err
	if err != nil || ino != l.ino || !ctime.Equal(l.ctime) || !stampedBefore(ctime, w.since) {
		return dirListing{}, false
	}
	return l, true
}

// prefetchMin is how many listings an earlier walk must have left for a
// walk to take their directories' stamps ahead of itself: below it,
// starting the workers costs more than they save.
const prefetchMin = 256

// prefetchWorkers bounds the goroutines prefetchStamps adds to its
// caller's.
const prefetchWorkers = 7

// dirStamp is what pathStamp found for a directory.
type dirStamp struct {
	ino   uint64
	ctime time.Time
	err   error
}

// prefetchStamps returns the stamps of the directories of prev, taken in
// parallel: on a large workspace a walk spends most of its time taking
// them one at a time (an lstat each, to tell whether a listing still
// holds), 2 000 directories ~4 ms a walk on the development VM, two walks
// a run. Each is taken after the walk's since, as the walk itself would
// take it; the walk compares it only when it reaches the directory. The
// caller's goroutine takes part, so the stamps are all taken even when
// the others start late.
func prefetchStamps(prev map[string]dirListing) map[string]dirStamp {
	paths := make([]string, 0, len(prev))
	for p := range prev {
		paths = append(paths, p)
	}
	got := make([]dirStamp, len(paths))
	var next atomic.Int64
	take := func() {
		for {
			i := next.Add(1) - 1
			if i >= int64(len(paths)) {
				return
			}
			s := &got[i]
			s.ino, s.ctime, _, s.err = pathStamp(paths[i])
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0)-1, prefetchWorkers) {
		wg.Go(take)
	}
	take()
	wg.Wait()
	stamps := make(map[string]dirStamp, len(paths))
	for i, p := range paths {
		stamps[p] = got[i]
	}
	return stamps
}

// coarseStamp is how far a file system that keeps change times in whole
// seconds may round one down: one second (ext3; ext4 with 128-byte
// inodes), two on FAT.
const coarseStamp = 2 * time.Second

// stampedBefore reports whether the change time ctime was stamped before
// since. A time with no fraction of a second may come from such a file
// system: there a change made after since can carry an earlier time, up
// to coarseStamp, so only one that much earlier counts as before.
func stampedBefore(ctime, since time.Time) bool {
	if ctime.Nanosecond() == 0 {
		since = since.Add(-coarseStamp)
	}
	return ctime.Before(since)
}

// roundedRecent reports whether ctime is a time in whole seconds not
// stamped before since (stampedBefore): an equal time then proves
// nothing, since a change made after since may have been rounded down
// to it.
func roundedRecent(ctime, since time.Time) bool {
	return ctime.Nanosecond() == 0 && !stampedBefore(ctime, since)
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
