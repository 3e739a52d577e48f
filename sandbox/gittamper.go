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
)

// GitScanLimit bounds the entries one scan of a workspace reads; a larger
// workspace is scanned that far and the result says it is incomplete.
const GitScanLimit = 200_000

// gitHooksMax bounds the entries read of one hooks directory.
const gitHooksMax = 1024

// GitRepos is what a scan of a workspace found before a run: the
// repositories in it, by the path of their `.git` entry or git directory
// and its inode.
type GitRepos struct {
	root     string
	since    time.Time
	repos    map[string]uint64
	complete bool
}

// ScanGitRepos lists the repositories under root (the workspace): every
// entry named .git, directory, file or link, and every directory git
// would take for a git directory (a bare repository), up to GitScanLimit
// entries. Call it just before the run; GitTamper compares after it.
func ScanGitRepos(root string) *GitRepos {
	g := &GitRepos{root: root, since: time.Now(), repos: map[string]uint64{}}
	_, g.complete = walkRepos(root, false, func(r gitRepo) { g.repos[r.path] = r.ino })
	return g
}

// GitTamper returns what a run changed that the host's next git would
// execute: each repository whose .git appeared (or was replaced) during it,
// and each control file (GitControl) of any repository in the workspace
// changed, created, moved or linked during it, judged by its inode change
// time, which a process cannot set back. unscanned are the directories
// among tampered that the scan could not list, though git can go through
// them: every one, after every run, since what they hide is unknown and
// could have changed without changing them. complete is false when either scan stopped at
// GitScanLimit. Nothing is changed or removed: what to do about it is the
// user's call.
func (g *GitRepos) GitTamper() (tampered, unscanned []string, complete bool) {
	var repos []gitRepo
	unscanned, complete = walkRepos(g.root, true, func(r gitRepo) { repos = append(repos, r) })
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
		var paths []string
		var err error
		if r.gitdir {
			paths, err = gitDirControl(r.path, g.root)
		} else {
			paths, err = gitControl(filepath.Dir(r.path), g.root, "")
		}
		if err != nil {
			note(r.path) // unreadable now, readable before: changed
			continue
		}
		// A .git directory changes with every commit; a .git file or
		// link only when it is pointed elsewhere.
		if fi, err := os.Lstat(r.path); err == nil && !fi.IsDir() {
			paths = append(paths, r.path)
		}
		for _, p := range paths {
			if changedSince(p, g.since) {
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

// Changed returns those of paths made or changed since the scan, a
// directory also when an entry of it was (changedSince).
func (g *GitRepos) Changed(paths []string) []string {
	var out []string
	for _, p := range paths {
		if changedSince(p, g.since) {
			out = append(out, p)
		}
	}
	return out
}

// changedSince reports whether path, or an entry of it when it is a
// directory (a hooks directory: a hook edited in place changes only its
// own inode), had its inode changed at or after t.
func changedSince(path string, t time.Time) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if ctimeOf(fi).Compare(t) >= 0 {
		return true
	}
	if !fi.IsDir() {
		return false
	}
	d, err := os.Open(path)
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(gitHooksMax)
	for _, n := range names {
		if fi, err := os.Lstat(filepath.Join(path, n)); err == nil && ctimeOf(fi).Compare(t) >= 0 {
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
// workspace, telling w too.
// Backends wrap their Run in it.
func WatchGit(p *Profile, w io.Writer, run func() (*Result, error)) (*Result, error) {
	if !p.WatchesGit() {
		return run()
	}
	repos := ScanGitRepos(p.Workspace)
	res, err := run()
	if res != nil {
		var complete bool
		res.Tampered, res.TamperUnscanned, complete = repos.GitTamper()
		res.TamperIncomplete = !complete
		// A link on the way to a git control file is watched too (so
		// that it is pinned): the git warning says it better.
		var settings []string
		for _, s := range repos.Changed(p.Watch) {
			if !slices.Contains(res.Tampered, s) {
				res.Tampered = append(res.Tampered, s)
				settings = append(settings, s)
			}
		}
		slices.Sort(res.Tampered)
		warnTampered(w, res, settings)
	}
	return res, err
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
	d, err := os.Open(path)
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(1)
	return len(names) == 0
}
