//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/plainfile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// mountKind is what the helper does at one path of its mount namespace;
// the values are GX_MOUNT_* of helper/helper_linux.h (TestHelperABI).
type mountKind int

const (
	// mountPin bind-mounts a directory onto itself so it becomes a mount
	// point: mount points cannot be renamed or removed (EBUSY), so a
	// protected path cannot be moved aside with its ancestors.
	mountPin mountKind = 1
	// mountReadOnly bind-mounts a path onto itself read-only.
	mountReadOnly mountKind = 2
	// mountEmptyDir mounts an empty read-only tmpfs over a directory.
	mountEmptyDir mountKind = 3
	// mountNullFile bind-mounts /dev/null read-only over a file.
	mountNullFile mountKind = 4
	// mountWritable bind-mounts a write root onto itself, so that the
	// read-only tree that follows can leave it as writable as it was.
	mountWritable mountKind = 5
	// mountTreeReadOnly makes every mount at and below a path read-only,
	// then the write roots bound before it writable again if they were.
	mountTreeReadOnly mountKind = 6
	// mountPinLink makes a symbolic link a mount point of itself, so that
	// it can be neither removed nor replaced: a symlinked .git, whose
	// target's hooks and config the protect mounts hold.
	mountPinLink mountKind = 7
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
//
// cwd is the command's working directory, absolute, or "" when unknown:
// it is never made a holder (see holderOf).
func mountPlan(p *sandbox.Profile, cwd string) (ops []mountOp, created []string, err error) {
	ops, created, _, err = planMounts(p, cwd, nil)
	return ops, created, err
}

// planMounts is mountPlan that also returns every holder the plan mounts,
// made now or found (see holders.go). With h, it first takes the lock on
// the directory it makes a holder in, when that is not the write root
// itself: maybe another run's holder, which that run, ending, removes
// or sets aside once it finds it empty, this run's holder in it then
// too, which would be left behind.
func planMounts(p *sandbox.Profile, cwd string, h *holders) (ops []mountOp, created, held []string, err error) {
	pinned := map[string]bool{}
	planned := map[string]bool{}
	for _, prot := range p.Protect {
		if p.HiddenByPrivateTmp(prot) {
			continue // not in the command's tree at all
		}
		root, inner := writeRoots(p.Write, prot)
		if root == "" {
			// Not inside a writable path: Landlock already makes it read-only.
			continue
		}
		if coveringPlanned(planned, prot) {
			continue // an ancestor is already mounted read-only
		}
		target := prot
		fi, err := os.Lstat(prot)
		if os.IsNotExist(err) {
			// A mount needs an existing target: an empty directory the
			// command cannot write, rename or remove holds the path (see
			// holderOf), so that nothing that exists becomes read-only
			// and the host keeps no odd debris. In a workspace without
			// .git, ".git/config" is held by an empty .git, which a later
			// `git init` fills in.
			if _, err := os.Lstat(root); err != nil {
				continue // the write root is missing: nothing there is writable
			}
			var create bool
			target, create = holderOf(root, inner, cwd, prot)
			if create {
				if parent := filepath.Dir(target); h != nil && parent != root && !h.holds(parent) && !h.lockDir(parent) {
					return nil, created, held, fmt.Errorf("protect %s: %w", prot, errHolderGone)
				}
				made, err := mkdirRecord(target)
				created = append(created, made...)
				if err != nil && cannotCreate(err, filepath.Dir(target)) {
					// Nor can the command: nothing to hold.
					continue
				}
				if errors.Is(err, fs.ErrNotExist) {
					// A run ending meanwhile removed the holder
					// this one was to be made in.
					err = errHolderGone
				}
				if err != nil {
					return nil, created, held, fmt.Errorf("protect %s: %w", prot, err)
				}
			}
			held = append(held, target)
		} else if err != nil {
			return nil, created, held, fmt.Errorf("protect %s: %w", prot, err)
		} else if fi.IsDir() {
			// Maybe another run's holder (.gatedexec): held too, so
			// that run leaves it while this one has it mounted. Which
			// one it is can change until it is locked (holders.lock).
			held = append(held, prot)
		}
		if planned[target] {
			continue
		}
		planned[target] = true
		// Every directory between the write root and the target, also
		// under a write root of "/" (whose prefix is "/", not "//").
		for dir := filepath.Dir(target); dir != root && within(dir, root); dir = filepath.Dir(dir) {
			pinned[dir] = true
		}
		ops = append(ops, mountOp{Kind: mountReadOnly, Path: target})
	}
	// A symlinked .git, or a symlinked hooks, config, config.worktree,
	// info or commondir in a writable .git: the protect mounts hold the
	// targets' files, but the link itself could be replaced by a directory
	// or file of the command's, which the host's next git would follow.
	// So is a watched link: a settings file that is one (a dotfile
	// manager's ~/.bashrc, a .mcp.json kept elsewhere), or one on the way
	// to a setting or a git control file (cfg in .claude -> cfg/claude).
	// The directories between the write root and the link are pinned too:
	// renamed away with the link in it, a directory of the command's could
	// take its place. One inside a read-only mount is held by it already.
	var linkOps []mountOp
	pinnedLinks := map[string]bool{}
	var named []string
	if ws := p.Workspace; ws != "" {
		for _, name := range gitLinkNames {
			named = append(named, filepath.Join(ws, ".git", name))
		}
	}
	for _, link := range append(named, p.Watch...) {
		if pinnedLinks[link] || coveringPlanned(planned, filepath.Dir(link)) {
			continue
		}
		fi, err := os.Lstat(link)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 || p.HiddenByPrivateTmp(link) {
			continue
		}
		root, _ := writeRoots(p.Write, link)
		if root == "" {
			continue
		}
		pinnedLinks[link] = true
		linkOps = append(linkOps, mountOp{Kind: mountPinLink, Path: link})
		for dir := filepath.Dir(link); dir != root && within(dir, root); dir = filepath.Dir(dir) {
			pinned[dir] = true
		}
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
	ops = append(readOnlyTree(p), ops...)
	ops = append(ops, linkOps...)
	for _, h := range p.Hide {
		if p.HiddenByPrivateTmp(h) {
			continue
		}
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
	return ops, created, held, nil
}

// gitLinkNames are the entries of a workspace's .git (and .git itself,
// "") that are pinned when they are symbolic links (planMounts).
var gitLinkNames = []string{"", "hooks", "config", "config.worktree", "info", "commondir"}

// readOnlyTree makes the whole tree read-only but the write roots.
// Landlock has no right for a file's mode, owner, times or attributes:
// without this a command could chmod, chown or touch what its user may
// anywhere (root: chmod u+s /bin/sh). It comes first, so the protect and
// hide mounts land on top of it.
func readOnlyTree(p *sandbox.Profile) []mountOp {
	var ops []mountOp
	for _, w := range p.Write {
		if _, err := os.Stat(w); err == nil {
			ops = append(ops, mountOp{Kind: mountWritable, Path: w})
		}
	}
	return append(ops, mountOp{Kind: mountTreeReadOnly, Path: "/"})
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// writeRoots returns the shortest and the longest Write paths that
// contain path, or "" if none does.
func writeRoots(write []string, path string) (outer, inner string) {
	for _, w := range write {
		if !within(path, w) {
			continue
		}
		if outer == "" || len(w) < len(outer) {
			outer = w
		}
		if len(w) > len(inner) {
			inner = w
		}
	}
	return outer, inner
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

// holderOf returns the directory whose read-only mount keeps the missing
// path from being created, and whether it must be made first.
//
// That is the deepest existing ancestor of path when it is an empty
// directory below inner, the innermost write root holding path, other
// than cwd: making it read-only hides nothing, and neither a write root
// nor the directory the command works in becomes read-only (an empty
// workspace must stay writable, under :tmp or under a write root of /). Such an ancestor is
// usually the placeholder an earlier or concurrent run made, and holding
// the path there leaves no more debris. Were the next missing component
// made instead, a second run in a workspace without .git would leave a
// directory named .git/config, which breaks `git init`.
//
// Otherwise it is the outermost missing component, to be made; or path
// itself when every component exists (a concurrent run has just made it).
func holderOf(root, inner, cwd, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path, false
	}
	deepest, dir := "", root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, c)
		if _, err := os.Lstat(dir); err != nil {
			if deepest != inner && within(deepest, inner) && deepest != cwd && sandbox.IsEmptyDir(deepest) {
				return deepest, false
			}
			return dir, true
		}
		deepest = dir
	}
	return path, false
}

// mkdirRecord makes dir and returns it, or nothing when a concurrent run
// made it first. Made by root, it gets the owner of the directory it is
// made in: in a user's workspace, the user can fill a holder (`git init`
// in an empty .git) as if it were the user's own, also while a long-lived
// server keeps it.
func mkdirRecord(dir string) ([]string, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, nil
		}
		return nil, err
	}
	var st unix.Stat_t
	if os.Geteuid() == 0 && unix.Lstat(filepath.Dir(dir), &st) == nil && st.Uid != 0 {
		// Best effort: a root-owned holder only keeps the user out.
		unix.Lchown(dir, int(st.Uid), int(st.Gid))
	}
	return []string{dir}, nil
}

// privateTmpVisible returns the working directory cwd and the directory
// of program when they lie in one of p's private tmp directories outside
// what p keeps there: the run keeps them too, read-only (the read-only
// tree covers every mount but the write roots), planned as readable paths
// of the profile, so that its protect and hide paths below them hold.
// Nothing else of the host's /tmp is there. An empty or relative one is
// not kept.
func privateTmpVisible(p *sandbox.Profile, cwd, program string) []string {
	var visible []string
	for _, d := range []string{cwd, filepath.Dir(program)} {
		if d != "" && filepath.IsAbs(d) && p.HiddenByPrivateTmp(d) {
			visible = append(visible, d)
		}
	}
	return visible
}

// withVisible returns p planned with visible (privateTmpVisible) among
// its readable paths, which keeps them; p itself when there are none.
func withVisible(p *sandbox.Profile, visible []string) *sandbox.Profile {
	if len(visible) == 0 {
		return p
	}
	q := *p
	q.Read = append(slices.Clip(p.Read), visible...)
	return &q
}

// keepPaths returns the paths bound back from the host's tree into the
// private tmp (sandbox.Profile.KeptRoots). One not made yet is held
// through its deepest existing ancestor below the tmp directory; nested
// ones are covered by the outer one.
func keepPaths(p *sandbox.Profile) []string {
	var keep []string
	for _, c := range p.KeptRoots() {
		tmp := slices.IndexFunc(p.PrivateTmp, func(t string) bool { return within(c, t) })
		for c = filepath.Clean(c); c != p.PrivateTmp[tmp]; c = filepath.Dir(c) {
			if _, err := os.Lstat(c); err == nil {
				keep = append(keep, c)
				break
			}
		}
	}
	sort.Strings(keep)
	out := keep[:0]
	for _, k := range keep {
		if len(out) == 0 || !within(k, out[len(out)-1]) {
			out = append(out, k)
		}
	}
	return out
}

// hostSockets returns read-only /dev/null mounts over the host's pathname
// unix sockets the command must not reach: every socket bound in this
// network namespace (/proc/net/unix) outside the Write paths, other than
// those p lets it reach and those already out of sight (private tmp, hide),
// but every one below visible, the host's /tmp directories kept for it.
// Landlock has no right for connecting to a socket file, so a daemon
// listening there (docker, the session bus, an agent) would act for the
// command outside the sandbox. A table that cannot be read fails the run:
// without it no socket would be covered.
func hostSockets(p *sandbox.Profile, visible []string) ([]mountOp, error) {
	return socketMounts(p, visible, "/proc/net/unix")
}

// socketMounts is hostSockets reading the socket table at table.
func socketMounts(p *sandbox.Profile, visible []string, table string) ([]mountOp, error) {
	b, err := plainfile.ReadFile(table)
	if err != nil {
		return nil, fmt.Errorf("sandbox: host unix sockets: %w", err)
	}
	var ops []mountOp
	seen := map[string]bool{}
	gone := slices.Concat(p.Write, p.PrivateTmp, p.Hide)
	for _, line := range strings.Split(string(b), "\n")[1:] {
		path, ok := unixSocketPath(line)
		if !ok || !strings.HasPrefix(path, "/") {
			continue
		}
		under := func(roots []string) bool {
			return slices.ContainsFunc(roots, func(r string) bool { return within(path, r) })
		}
		if seen[path] || under(p.Sockets) || !under(visible) && under(gone) {
			continue
		}
		seen[path] = true
		if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSocket != 0 {
			ops = append(ops, mountOp{Kind: mountNullFile, Path: path})
		}
	}
	return ops, nil
}

// unixSocketPath returns the path of one line of /proc/net/unix ("Num
// RefCount Protocol Flags Type St Inode Path"), as the kernel wrote it:
// the rest of the line after the inode and one space, so that a path with
// runs of spaces is the socket's own name.
func unixSocketPath(line string) (string, bool) {
	rest := line
	for range 7 {
		rest = strings.TrimLeft(rest, " ")
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			return "", false
		}
		rest = rest[i:]
	}
	path := strings.TrimPrefix(rest, " ")
	return path, path != ""
}
