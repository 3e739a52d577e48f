//go:build linux

package linux

import (
	"maps"
	"os"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// keptHolders are the placeholder directories a LongLived Runner has
// made, each held with a shared flock of its own until Close: no run
// removes a directory another holder has locked (holders.removeIfFree),
// so the next runs find them there and neither make nor remove them. A
// long-lived engine running command after command in one workspace thus
// saves a mkdir, a setxattr and an rmdir of the workspace's filesystem
// per run.
type keptHolders struct {
	mu   sync.Mutex
	dirs map[string]*os.File // by path
}

// keep holds, for the Runner's life, the directories of h that its run
// made. A directory kept before at the same path but since replaced (the
// user removed it, and a run made it again) is let go.
func (k *keptHolders) keep(h *holders) {
	if h == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, f := range h.dirs {
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) != nil || !h.made[idOf(&st)] {
			continue
		}
		if old, ok := k.dirs[f.Name()]; ok {
			var ost unix.Stat_t
			if unix.Fstat(int(old.Fd()), &ost) == nil && idOf(&ost) == idOf(&st) {
				continue
			}
			old.Close()
			delete(k.dirs, f.Name())
		}
		// A descriptor of its own, not a dup: a flock belongs to the
		// open file, and the run's release converts its own lock.
		g, err := os.Open(f.Name())
		if err != nil {
			continue
		}
		var gst unix.Stat_t
		if unix.Fstat(int(g.Fd()), &gst) != nil || idOf(&gst) != idOf(&st) || unix.Flock(int(g.Fd()), unix.LOCK_SH) != nil {
			g.Close()
			continue
		}
		if k.dirs == nil {
			k.dirs = map[string]*os.File{}
		}
		k.dirs[f.Name()] = g
	}
}

// release lets every kept directory go, removing the ones no run holds
// that are still empty, as the runs that made them would have: the
// Runner's runs have all ended.
func (k *keptHolders) release() {
	k.mu.Lock()
	defer k.mu.Unlock()
	h := &holders{made: map[dirID]bool{}}
	// By path, so that release, which goes backward, empties a holder
	// inside another (.git/hooks in .git) first.
	for _, path := range slices.Sorted(maps.Keys(k.dirs)) {
		f := k.dirs[path]
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) == nil {
			h.made[idOf(&st)] = true
		}
		h.dirs = append(h.dirs, f)
	}
	h.release(true)
	k.dirs = nil
}
