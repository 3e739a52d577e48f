package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/gatedexec/gatedexec/internal/plainfile"
	"golang.org/x/sys/unix"
)

// GitScanLimit bounds the entries one scan of a workspace reads; a larger
// workspace is scanned that far and the result says it is incomplete.
const GitScanLimit = 200_000

// gitHooksMax bounds the entries read of one hooks directory.
const gitHooksMax = 1024

// GitRepos is what a scan of a workspace found before a run: the
// repositories in it, by the path of their `.git` entry or git directory
// and its inode, and the stamps of their control files.
type GitRepos struct {
	root  string
	since time.Time
	// begun is when the run began making what it makes in the
	// workspace (the holders of its mount plan), no later than since: a
	// directory changed after it is not kept (Keep), the run undoes its
	// own changes after the scan.
	begun    time.Time
	repos    map[string]uint64
	complete bool
	// control is what the scan found of each repository's control
	// files, by its path: the scan after takes a list that still holds
	// (controlMemo) instead of reading it again; reused counts those.
	control map[string]controlMemo
	reused  int
	// listed are the directories the scan read, which the scan after
	// the run reads again only where they changed.
	listed map[string]dirListing
	// stamps are the control files of the repositories found, and the
	// paths Watch was given, as they were before the run.
	stamps stamps
	// cache is where the listings are kept between runs (gitscancache.go),
	// "" for nowhere, and kept what was read from there; after are the
	// listings of the scan after the run, and reads how many directories
	// the two scans read rather than took from a listing before.
	cache string
	kept  map[string]dirListing
	after map[string]dirListing
	reads int
}

// scanGitRepos lists the repositories under root (the workspace): every
// entry named .git, directory, file or link, and every directory git
// would take for a git directory (a bare repository), up to GitScanLimit
// entries, and notes their control files. Call it just before the run;
// GitTamper compares after it. It takes the listings the scan after the
// last run under root kept in the directory cache (saveListings, ""
// for none) for the directories unchanged since; Keep keeps this run's
// there. begun is when the run began to make things in the workspace
// (coarseNow before its first), zero for now.
func scanGitRepos(root, cache string, begun time.Time) *GitRepos {
	g := &GitRepos{root: root, since: coarseNow(), repos: map[string]uint64{}, listed: map[string]dirListing{}, stamps: stamps{}, cache: cache, control: map[string]controlMemo{}}
	g.begun = g.since
	if !begun.IsZero() && begun.Before(g.since) {
		g.begun = begun
	}
	prev, prevSince := loadListings(cache, root)
	g.kept = prev
	var found []gitRepo
	_, g.complete, g.reads = walkRepos(root, false, prev, g.listed, prevSince, func(r gitRepo) {
		g.repos[r.path] = r.ino
		found = append(found, r)
	})
	for _, r := range found {
		if c, err := r.readControl(root); err == nil {
			g.control[r.path] = c.memo(r.gitdir)
			g.stamps.noteFrom(&c.pathSet, c.list...)
		}
	}
	return g
}

// Watch notes paths as they are before the run, for Changed.
func (g *GitRepos) Watch(paths []string) { g.stamps.note(paths...) }

// GitTamper returns what a run changed that the host's next git would
// execute: each repository whose .git appeared (or was replaced) during it,
// and each control file (GitControl) of any repository in the workspace
// changed, created, moved or linked during it, judged against what the
// scan before noted, and by its inode change time, which a process cannot
// set back, for one it did not (a path a changed config names).
// unscanned are the directories among tampered that the scan could not
// list, though git can go through them: every one, after every run, since
// what they hide is unknown and could have changed without changing them.
// complete is false when either scan stopped at GitScanLimit. Nothing is
// changed or removed: what to do about it is the user's call.
func (g *GitRepos) GitTamper() (tampered, unscanned []string, complete bool) {
	var repos []gitRepo
	g.after = map[string]dirListing{}
	var reads int
	unscanned, complete, reads = walkRepos(g.root, true, g.listed, g.after, g.since, func(r gitRepo) { repos = append(repos, r) })
	g.reads += reads
	complete = complete && g.complete
	seen := map[string]bool{}
	note := func(p string) {
		if !seen[p] {
			seen[p] = true
			tampered = append(tampered, p)
		}
	}
	for _, r := range repos {
		if ino, ok := g.repos[r.path]; !ok || ino != r.ino {
			// A new repository: its files are new too. An empty .git is
			// no repository (it is how a protect path of a workspace
			// without one is held) and runs nothing.
			if !IsEmptyDir(r.path) {
				note(r.path)
			}
			continue
		}
		paths, now, err := g.controlAfter(r)
		if err != nil {
			note(r.path) // unreadable now, readable before: changed
			continue
		}
		for _, p := range paths {
			if g.stamps.changedFrom(now, p, g.since) {
				note(p)
			}
		}
	}
	for _, d := range unscanned {
		note(d)
	}
	slices.Sort(tampered)
	return tampered, unscanned, complete
}

// Keep keeps the listings of the scan after the run (GitTamper) for the
// next run's scan, where the scan was made with a cache and what is kept
// there would spare the next scan a read (newerListings).
//
// A listing is worth keeping only from before the run began (begun): a
// directory the run changed before the scan, a placeholder made in it,
// changes again when the run removes it, so its listing would spare
// nothing, and a write on every run in a workspace without .gatedexec/
// was most of the scan's cost.
func (g *GitRepos) Keep() {
	if g.reads == 0 || !newerListings(g.after, g.kept, g.begun) {
		// What is kept holds, from its own time: a listing that no
		// longer matches its directory is read again, never trusted.
		return
	}
	// Every listing was read, or found unchanged, after g.since, which
	// is no earlier than g.begun.
	saveListings(g.cache, g.root, g.after, g.begun)
}

// newerListings reports whether keeping after, read by a walk that
// started at since, would spare the next scan a read that what is kept
// (kept) leaves it: the next scan takes a listing only of a directory
// unchanged since the walk that read it started (stampedBefore), so only
// such a listing that kept lacks, or holds otherwise, is worth a write.
// A directory changed during the run is read again whatever is kept: a
// run that only made and removed entries in the workspace's root, as the
// placeholders of its mount plan do, writes nothing (on a small
// workspace the write was most of the scan's cost).
func newerListings(after, kept map[string]dirListing, since time.Time) bool {
	for path, l := range after {
		if !stampedBefore(l.ctime, since) {
			continue
		}
		k, ok := kept[path]
		if !ok || l.ino != k.ino || !l.ctime.Equal(k.ctime) || !l.sameEntries(k) {
			return true
		}
	}
	return false
}

// controlPaths returns the control files of r (GitControl), and its .git
// when that is a file or link: a .git directory changes with every
// commit, a .git file or link only when it is pointed elsewhere.
func (r gitRepo) controlPaths(root string) ([]string, error) {
	c, err := r.readControl(root)
	if err != nil {
		return nil, err
	}
	return c.list, nil
}

// controlAfter returns the control files of r, a repository the scan
// before found, after the run: the scan before's list when nothing it was
// read from changed since (controlMemo.unchanged), else read again; with
// the lstats taken on the way, which are the run's end's too.
func (g *GitRepos) controlAfter(r gitRepo) ([]string, *pathSet, error) {
	now := &pathSet{}
	if m, ok := g.control[r.path]; ok && m.unchanged(r.gitdir, g.since, now) {
		g.reused++
		return m.paths, now, nil
	}
	c, err := r.readControl(g.root)
	if err != nil {
		return nil, nil, err
	}
	return c.list, &c.pathSet, nil
}

// Changed returns those of paths made or changed since the scan, a
// directory also when an entry of it was: against what Watch noted, else
// by change time (changedSince).
func (g *GitRepos) Changed(paths []string) []string {
	var out []string
	for _, p := range paths {
		if g.stamps.changedFrom(nil, p, g.since) {
			out = append(out, p)
		}
	}
	return out
}

// stamp is what a scan notes of a path to tell a later change by: its
// inode and change time, or that it was not there, and for a directory
// the names it listed in it (listed: whether it could).
type stamp struct {
	ino    uint64
	ctime  time.Time
	there  bool
	listed bool
	names  []string
}

// stamps are the stamps of paths, and of the entries of those that are
// directories (a hooks directory: a hook edited in place changes only
// its own inode).
type stamps map[string]stamp

// note records paths as they are now.
func (s stamps) note(paths ...string) { s.noteFrom(nil, paths...) }

// noteFrom is note taking what v, a set built just before, found of a
// path (its lstat, a directory's listing) instead of asking again.
func (s stamps) noteFrom(v *pathSet, paths ...string) {
	for _, p := range paths {
		ino, ctime, dir, err := v.stamp(p)
		st := stamp{ino: ino, ctime: ctime, there: err == nil}
		if err == nil && dir {
			if names, ok := v.listing(p); ok {
				st.names, st.listed = names, true
			} else {
				st.names, st.listed = dirNames(p)
			}
		}
		s[p] = st
		for _, n := range st.names {
			e := filepath.Join(p, n)
			if ino, ctime, _, err := v.stamp(e); err == nil {
				s[e] = stamp{ino: ino, ctime: ctime, there: true}
			}
		}
	}
}

// changedFrom reports whether path, or an entry of it when it is a
// directory, was made or changed since s noted it. A path s did not note
// is judged by its change time against since (changedSince): the clock
// only decides what the scan could not see before, since a change made
// in the same tick of the file system's clock as the scan, before it, is
// stamped at or after since too. The lstats v took just before (nil for
// none) are taken for its and its entries' stamps now.
func (s stamps) changedFrom(v *pathSet, path string, since time.Time) bool {
	before, known := s[path]
	if !known {
		return changedSince(path, since)
	}
	ino, ctime, dir, err := v.stamp(path)
	switch {
	case err != nil:
		return false // gone: nothing left to execute
	case !before.there || ino != before.ino || !ctime.Equal(before.ctime) || roundedRecent(ctime, since):
		return true
	case !dir:
		return false
	}
	// Unchanged itself, so no entry was made, removed or renamed in it
	// (its names are those listed before, not read again); one may have
	// been rewritten in place.
	names := before.names
	if !before.listed {
		names, _ = dirNames(path)
	}
	for _, n := range names {
		e := filepath.Join(path, n)
		b, ok := s[e]
		if !ok {
			return true
		}
		if ino, ctime, _, err := v.stamp(e); err == nil && (ino != b.ino || !ctime.Equal(b.ctime) || roundedRecent(ctime, since)) {
			return true
		}
	}
	return false
}

// dirNames returns up to gitHooksMax names of the directory path, and
// whether it could list it.
func dirNames(path string) ([]string, bool) {
	d, err := plainfile.Open(path, unix.O_DIRECTORY)
	if err != nil {
		return nil, false
	}
	defer d.Close()
	names, err := d.Readdirnames(gitHooksMax)
	return names, err == nil || err == io.EOF
}

// changedSince reports whether path, or an entry of it when it is a
// directory (a hooks directory: a hook edited in place changes only its
// own inode), had its inode changed at or after t (stampedBefore).
func changedSince(path string, t time.Time) bool {
	_, ctime, dir, err := pathStamp(path)
	if err != nil {
		return false
	}
	if !stampedBefore(ctime, t) {
		return true
	}
	if !dir {
		return false
	}
	names, _ := dirNames(path)
	for _, n := range names {
		if _, ctime, _, err := pathStamp(filepath.Join(path, n)); err == nil && !stampedBefore(ctime, t) {
			return true
		}
	}
	return false
}

func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// WatchGit calls run and, when p.WatchesGit, reports in its Result the git
// control files and the p.Watch paths the run created or changed in the
// workspace, telling w too. It is a GitWatch whose scan before comes
// first: a backend that can scan later, once its command is all but
// started, uses a GitWatch itself.
func WatchGit(p *Profile, w io.Writer, run func() (*Result, error)) (*Result, error) {
	g := NewGitWatch(p, w)
	g.Before()
	res, err := run()
	g.After(res)
	return res, err
}

// A GitWatch is WatchGit in its two steps, for a backend that scans when
// its command's start no longer waits for it: a helper with its plan,
// setting up its namespaces, needs only the go-ahead. Before scans once,
// before the command may start; After compares once it has ended, with
// whatever the run made for itself (the holders of missing protect paths)
// still in place, as it was at the scan before. A nil GitWatch (a
// profile that does not watch git) does nothing.
type GitWatch struct {
	p     *Profile
	w     io.Writer
	begun time.Time // when the watch was made (see GitRepos.begun)
	repos *GitRepos
}

// NewGitWatch returns the watch of a run of p, telling w of what it finds;
// nil when p does not watch git. Make it before the run makes anything in
// the workspace.
func NewGitWatch(p *Profile, w io.Writer) *GitWatch {
	if !p.WatchesGit() {
		return nil
	}
	return &GitWatch{p: p, w: w, begun: coarseNow()}
}

// Before scans the workspace, unless it has been: call it before the
// command can start, and after anything the run makes in the workspace
// before the command.
func (g *GitWatch) Before() {
	if g == nil || g.repos != nil {
		return
	}
	g.repos = scanGitRepos(g.p.Workspace, g.p.ScanCache, g.begun)
	g.repos.Watch(g.p.Watch)
}

// After reports in res what the run created or changed since Before, and
// tells the GitWatch's writer; a nil res (no run) has nothing to report.
// A run with a result whose watch never scanned had nothing to compare
// with: it is reported unchecked (TamperIncomplete, and a warning), not
// as clean.
func (g *GitWatch) After(res *Result) {
	if g == nil || res == nil {
		return
	}
	if g.repos == nil {
		res.TamperIncomplete = true
		fmt.Fprintf(g.w, "gatedexec: warning: the workspace was not scanned before the command; git control files were not checked\n")
		return
	}
	repos := g.repos
	var complete bool
	res.Tampered, res.TamperUnscanned, complete = repos.GitTamper()
	res.TamperIncomplete = !complete
	repos.Keep()
	// A link on the way to a git control file is watched too (so
	// that it is pinned): the git warning says it better.
	var settings []string
	for _, s := range repos.Changed(g.p.Watch) {
		if !slices.Contains(res.Tampered, s) {
			res.Tampered = append(res.Tampered, s)
			settings = append(settings, s)
		}
	}
	slices.Sort(res.Tampered)
	warnTampered(g.w, res, settings)
}

// warnTampered tells the user, on w, what a run changed that git, or for
// settings an agent, editor or shell, on the host would execute, and when
// the scan could not cover the workspace.
func warnTampered(w io.Writer, res *Result, settings []string) {
	for _, p := range res.Tampered {
		if slices.Contains(settings, p) {
			fmt.Fprintf(w, "gatedexec: warning: the command created or changed %s, from which agents, editors or shells on the host may run commands: review it before using them there\n", p)
			continue
		}
		if slices.Contains(res.TamperUnscanned, p) {
			fmt.Fprintf(w, "gatedexec: warning: the command created or changed %s, a directory gatedexec could not scan (it cannot list it, git can go through it): review what is in it before running git there\n", p)
			continue
		}
		fmt.Fprintf(w, "gatedexec: warning: the command created or changed %s, which git on the host may execute: review it before running git there\n", p)
	}
	if res.TamperIncomplete {
		fmt.Fprintf(w, "gatedexec: warning: the workspace has more than %d entries; git control files past them were not checked\n", GitScanLimit)
	}
}

// IsEmptyDir reports whether path is a directory, not a link to one, with
// nothing in it.
func IsEmptyDir(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	d, err := plainfile.Open(path, unix.O_DIRECTORY)
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(1)
	return len(names) == 0
}
