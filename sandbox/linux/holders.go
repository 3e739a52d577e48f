//go:build linux

package linux

import (
	"errors"
	"os"
	"slices"

	"golang.org/x/sys/unix"

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
type holders struct {
	dirs []*os.File
	made map[string]bool // made by this run, marked or not
}

// lockHolders takes the shared lock on every holder in held. stale is
// true when one was removed before its lock was taken: the plan must be
// made again.
func lockHolders(held, created []string) (h *holders, stale bool) {
	h = &holders{made: map[string]bool{}}
	for _, d := range created {
		h.made[d] = true
		// Best effort: without the mark, only this run removes it.
		unix.Setxattr(d, holderMark, []byte("1"), 0)
	}
	seen := map[string]bool{}
	for _, d := range held {
		if seen[d] {
			continue
		}
		seen[d] = true
		f, err := os.Open(d)
		if err != nil {
			return h, true
		}
		for unix.Flock(int(f.Fd()), unix.LOCK_SH) == unix.EINTR {
		}
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) != nil || st.Nlink == 0 {
			f.Close()
			return h, true
		}
		h.dirs = append(h.dirs, f)
	}
	return h, false
}

// release drops the locks and removes what no other run holds, when
// remove is set: the run's processes are all gone (a PID namespace), so
// none of them is left with the holder mounted.
func (h *holders) release(remove bool) {
	if h == nil {
		return
	}
	for _, f := range slices.Backward(h.dirs) {
		d := f.Name()
		// Only a holder is ever removed: the user's own directories
		// (most of those held) are told apart first, by the mark.
		if remove && (h.made[d] || marked(d)) && unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil && sandbox.IsEmptyDir(d) {
			os.Remove(d)
		}
		f.Close()
	}
	h.dirs = nil
}

func marked(dir string) bool {
	_, err := unix.Getxattr(dir, holderMark, nil)
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
