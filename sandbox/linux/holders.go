//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/internal/plainfile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// holderMark is the extended attribute that marks an empty directory as a
// holder gatedexec made (see holders), so that a later run may remove it;
// an empty directory of the user's has none and stays.
const holderMark = "user.gatedexec.holder"

// holders are the placeholder directories of one run (planMounts), each
// held with a shared flock on the directory itself while the run may have
// it mounted. After the run, one that is still empty, was made by
// gatedexec, and that no other run holds (an exclusive flock succeeds at
// once) is removed: nothing is left in the user's tree that the user did
// not make. Removing one another run holds would detach that run's
// read-only mount (rmdir of a mount point in another namespace succeeds),
// hence the lock; a run waiting for it while one is being removed finds it
// gone once it has its lock and plans again.
//
// Everything is decided about the directory locked, not its path: the
// path may name another run's holder by then, made after this run's was
// removed, and that one must stay while its run holds it.
type holders struct {
	dirs []*os.File
	made map[dirID]bool // made by this run, marked or not
	// leave, when set, is the process's exit, which the removal of a
	// holder is left to (setAside); nil removes them at once.
	leave *exitunmap.Leave
}

// dirID names a directory independently of its path.
type dirID struct{ dev, ino uint64 }

func idOf(st *unix.Stat_t) dirID { return dirID{uint64(st.Dev), st.Ino} }

// adopt marks the directories this run made and remembers them, so that
// they are removed after the run when still empty. The mark is best
// effort: without it, only this run removes one.
func (h *holders) adopt(made []string) {
	for _, d := range made {
		unix.Setxattr(d, holderMark, []byte("1"), 0)
		var st unix.Stat_t
		if unix.Lstat(d, &st) == nil {
			h.made[idOf(&st)] = true
		}
	}
}

// lock takes the shared lock on every holder in held that it does not
// hold yet. It reports false when one was removed before its lock was
// taken, with no lock left taken: the plan must be made again.
func (h *holders) lock(held []string) bool {
	for _, d := range held {
		if h.holds(d) {
			continue
		}
		if !h.lockDir(d) {
			h.release(false)
			return false
		}
	}
	return true
}

// holds reports whether h holds the directory at path d.
func (h *holders) holds(d string) bool {
	return slices.ContainsFunc(h.dirs, func(f *os.File) bool { return f.Name() == d })
}

// lockDir takes the shared lock on the directory d, maybe another run's
// holder, and keeps it. It reports false, with no lock taken, when d was
// removed or set aside (setAside) before the lock was taken.
func (h *holders) lockDir(d string) bool {
	// A directory only: anything else a command left there (a FIFO
	// would hold the open until a writer came) is no holder.
	f, err := plainfile.Open(d, unix.O_DIRECTORY)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		// Not a holder: a directory of the user's that this user may
		// not read, which no run can lock, so none removes it.
		return true
	}
	for unix.Flock(int(f.Fd()), unix.LOCK_SH) == unix.EINTR {
	}
	// Removed, or set aside, while the lock was awaited: the path no
	// longer names what is locked.
	var st, at unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Nlink == 0 || unix.Lstat(d, &at) != nil || idOf(&at) != idOf(&st) {
		f.Close()
		return false
	}
	h.dirs = append(h.dirs, f)
	return true
}

// release drops the locks and removes what no other run holds, when
// remove is set: the run's processes are all gone (a PID namespace), so
// none of them is left with the holder mounted.
func (h *holders) release(remove bool) {
	if h == nil {
		return
	}
	var removed []*os.File
	for _, f := range slices.Backward(h.dirs) {
		if remove && h.removeIfFree(f) {
			removed = append(removed, f)
			continue
		}
		// Kept, or set aside for the exit to remove (its inode lives
		// on until then): a close that frees nothing.
		f.Close()
	}
	h.dirs = nil
	if len(removed) > 0 {
		// The last close of a removed directory frees its inode, the
		// slowest step of the release (0.17 ms of a one-shot run on
		// ext4, measured); in the background it overlaps the scan
		// after the run. Its lock guards nothing once its path is gone.
		// Holders kept are closed above: their shared locks must be
		// gone when release returns, or the run that ends after this
		// one could not take the exclusive lock to remove them.
		go closeAll(removed)
	}
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// removeIfFree removes the holder f when it is free: made by gatedexec
// (the user's own directories, most of those held, are told apart by the
// mark), held by no other run, empty, and still at its path. Once this
// run has the exclusive lock, no other run removes it, so the path keeps
// naming it until the rmdir. It reports whether it removed it now: one
// set aside for the exit to remove (setAside) is not, and its close frees
// nothing yet.
func (h *holders) removeIfFree(f *os.File) bool {
	fd := int(f.Fd())
	var st, at unix.Stat_t
	if unix.Fstat(fd, &st) != nil || !h.made[idOf(&st)] && !marked(fd) {
		return false
	}
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	if unix.Lstat(f.Name(), &at) != nil || idOf(&at) != idOf(&st) {
		return false
	}
	if names, _ := f.Readdirnames(1); len(names) != 0 {
		return false
	}
	if h.leave != nil && setAside(f.Name(), h.leave) {
		return false
	}
	return unix.Rmdir(f.Name()) == nil
}

// asidePrefix begins the name a holder is renamed to when its removal is
// left to the process's exit (setAside): the prefix, then the holder's
// own name.
const asidePrefix = ".gatedexec-removing-"

// setAside renames the holder at path out of its way, into the same
// directory, and leaves its removal to leave, the process's exit: a
// holder is a mount point in the run's mount namespace until that exit
// drops it, and rmdir of a mount point in another namespace detaches it
// there and waits out an RCU grace period (a workspace-write run's
// `.gatedexec` took 0.15 ms, median of 124), which a rename does not
// (0.04 ms); the exit removes it once the namespace has gone. The path is
// free at once, for the next run to hold anew. It reports false, the
// holder untouched, when it cannot be renamed; when the exit cannot take
// it, the renamed holder is removed at once.
//
// The name set aside is the same for every run: one that an exit killed
// before its removal left behind is removed by the next run that sets
// the same holder aside, and one in the way of a run ending at the same
// time is removed for it. Either is empty, and none of its run's
// processes is left (release removes holders only then).
func setAside(path string, leave *exitunmap.Leave) bool {
	aside := filepath.Join(filepath.Dir(path), asidePrefix+filepath.Base(path))
	err := unix.Renameat2(unix.AT_FDCWD, path, unix.AT_FDCWD, aside, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EEXIST) && unix.Rmdir(aside) == nil {
		err = unix.Renameat2(unix.AT_FDCWD, path, unix.AT_FDCWD, aside, unix.RENAME_NOREPLACE)
	}
	if err != nil {
		return false
	}
	if !leave.RemoveDir(aside) {
		unix.Rmdir(aside)
	}
	return true
}

func marked(fd int) bool {
	_, err := unix.Fgetxattr(fd, holderMark, nil)
	return err == nil || errors.Is(err, unix.ERANGE)
}

// cannotCreate reports whether err, from making a holder in dir, means
// that the command cannot make anything there either: a read-only
// filesystem, or a directory it may not write and whose mode it cannot
// change (not its own, and no privilege). A protect path matters only
// where the command could create it.
func cannotCreate(err error, dir string) bool {
	if errors.Is(err, unix.EROFS) {
		return true
	}
	if !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EPERM) || os.Geteuid() == 0 {
		return false
	}
	var st unix.Stat_t
	return unix.Lstat(dir, &st) == nil && int(st.Uid) != os.Geteuid()
}

// errHolderGone is planMounts' error when a directory it was to make a
// holder in was removed meanwhile by a run ending: the plan is made again.
var errHolderGone = errors.New("a placeholder was removed by a run that ended meanwhile")

// holdTries bounds how often holdMounts plans again: each retry means a
// concurrent run removed a holder while this one planned, which takes
// far fewer than this even with hundreds of runs in one workspace.
const holdTries = 32

// holdMounts plans the mounts for p (planMounts) and takes the lock on
// every holder of the plan. A holder removed by a run ending meanwhile,
// while the plan was made or before its lock was taken, is made again by
// planning again; when that keeps happening the command does not run,
// since its protect paths would not all be held.
func holdMounts(p *sandbox.Profile, cwd string) ([]mountOp, *holders, error) {
	// A directory made by a plan that was dropped is this run's too, so
	// no retry leaves one behind.
	h := &holders{made: map[dirID]bool{}}
	for try := 1; ; try++ {
		ops, created, held, err := planMounts(p, cwd, h)
		h.adopt(created)
		if err == nil {
			if h.lock(held) {
				return ops, h, nil
			}
			err = errHolderGone
		}
		// The directories locked while planning (planMounts).
		h.release(false)
		if !errors.Is(err, errHolderGone) {
			return nil, nil, err
		}
		if try == holdTries {
			return nil, nil, fmt.Errorf("profile %s: protect paths: %w, %d times in a row", p.Name, errHolderGone, holdTries)
		}
		// Runs ending at the rate this one plans would keep winning:
		// wait a little longer each time, at random, to let them end.
		time.Sleep(rand.N(time.Duration(try) * 200 * time.Microsecond))
	}
}
