//go:build linux

package linux

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/plainfile"
)

// A one-shot run as root made its cgroups and removed them after it: the
// mkdirs and limits cost 0.27 ms and the rmdirs (the memory cgroup's
// offlining) 0.14 ms of CPU in every sandboxed start (perf, 300 runs of
// workspace-write). A LongLived Runner gives the cgroups of a run that
// has ended to its next run (spareCgroups); one-shot runs now do the same
// across processes. Their cgroups are kept, empty, under a name of their
// limits (keptCgroupStem and a slot number), and the next run with those
// limits claims them by a lock on the first one's directory, once they
// pass the check the LongLived reuse makes (reusable: no task left, no
// memory the run could not reclaim, the limits written again). Up to
// keptCgroupSlots sets are kept per limits, for runs at the same time;
// beyond, a run makes and removes its own as before. Kept cgroups stay
// until removed by hand (rmdir), as a service's do.

// keptCgroupSlots bounds the sets of kept cgroups per limits.
const keptCgroupSlots = 8

// keptCgroupInfix follows cgroupPrefix in a kept cgroup's name, which
// parseCgroupName does not read, so that sweepStale leaves it.
const keptCgroupInfix = "kept-"

// keptCgroupStem is what the names of the kept cgroups for limits start
// with: the slot follows.
func keptCgroupStem(limits []cgroupLimit) string {
	sum := sha256.Sum256([]byte(limitsKey(limits)))
	return cgroupPrefix + keptCgroupInfix + hex.EncodeToString(sum[:6]) + "-"
}

// claimKeptCgroups returns the kept cgroups for limits of the first slot
// no other run holds and whose cgroups can be reused, made now where
// missing; nil when there is none (the run makes its own then).
func claimKeptCgroups(h *cgroupHost, limits []cgroupLimit) *runCgroups {
	if h.err != nil || !slices.ContainsFunc(limits, func(l cgroupLimit) bool { return l.value != 0 }) {
		return nil
	}
	stem := keptCgroupStem(limits)
	for slot := range keptCgroupSlots {
		if g := claimKeptSlot(h, limits, stem+strconv.Itoa(slot)); g != nil {
			return g
		}
	}
	return nil
}

// claimKeptSlot returns the kept cgroups named name for limits, locked,
// or nil when another run holds them or they cannot be reused.
func claimKeptSlot(h *cgroupHost, limits []cgroupLimit, name string) *runCgroups {
	g := namedCgroups(h, limits, name, true)
	if len(g.dirs) == 0 {
		return nil
	}
	lock, err := plainfile.Open(g.dirs[0], unix.O_DIRECTORY|unix.O_NOFOLLOW)
	if err != nil {
		return nil
	}
	// reusable writes the limits too: a slot just made gets them there.
	if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !g.reusable() {
		lock.Close()
		return nil
	}
	g.lock = lock
	return g
}
