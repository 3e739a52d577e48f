package exitunmap

import (
	"encoding/binary"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spawn clones a child that shares this process's memory and descriptor
// table and, on the stack it is given (its top), blocks every signal and
// waits until pidfd is readable, then closes every descriptor, removes
// the directories of removals (encodeRemovals) and exits. It returns the
// child's pid, or a negated errno.
func spawn(pidfd int32, stack, removals uintptr) int64

// canHold says whether hold can leave anything to a child.
const canHold = true

// holderStack is the size of the holder's stack: it keeps one pollfd.
const holderStack = 4096

// holder is a child holding this process's memory and descriptors
// (startHolder): once the process it waits for has exited, it closes
// them, removes the directories written at the start of its mapping
// (leave), and exits.
type holder struct {
	pid      int
	removals []byte
}

// startSelf starts the child that holds this process's memory and
// descriptors until the process has exited; nil when none could be
// started. Its pidfd stays open in the table they share.
func startSelf() *holder {
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return nil
	}
	if pidfd <= 2 {
		// Exit closes 0 to 2 before the exit (closeStdio), which would
		// end the child's wait early: a pidfd among them (stdio closed
		// when this process started) moves above.
		moved, err := unix.FcntlInt(uintptr(pidfd), unix.F_DUPFD_CLOEXEC, 3)
		unix.Close(pidfd)
		if err != nil {
			return nil
		}
		pidfd = moved
	}
	h := startHolder(pidfd)
	if h == nil {
		unix.Close(pidfd)
	}
	return h
}

// startHolder starts a child holding this process's memory and
// descriptors until the process pidfd names has exited, with no removals
// yet; nil when none was started. pidfd stays open: the child waits on
// it in the table they share.
func startHolder(pidfd int) *holder {
	// A mapping of its own: nothing of Go's is ever placed there, so the
	// child's writes can touch nothing this process still uses. The
	// removals go below the stack, zero (none) until leave writes them:
	// the child reads them after the process has exited, when nothing of
	// Go's is left.
	m, err := unix.Mmap(-1, 0, maxRemovalBytes+holderStack, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil
	}
	base := uintptr(unsafe.Pointer(&m[0]))
	pid := spawn(int32(pidfd), base+uintptr(len(m)), base)
	if pid <= 0 {
		unix.Munmap(m)
		return nil
	}
	return &holder{pid: int(pid), removals: m[:maxRemovalBytes]}
}

// leave gives h dirs to remove once the process has exited, and reports
// false, giving it nothing, when they do not fit. The count goes last,
// in one store: a process that dies while writing the paths leaves none.
func (h *holder) leave(dirs []string) bool {
	if len(dirs) == 0 {
		return true
	}
	count := (*uint64)(unsafe.Pointer(&h.removals[0]))
	if atomic.LoadUint64(count) != 0 || !encodeRemovals(h.removals, dirs) {
		return false
	}
	atomic.StoreUint64(count, uint64(len(dirs)))
	return true
}

// closeStdio closes the standard streams before an exit that leaves the
// rest to a holder, which shares them: whoever reads this process's
// output gets its end with the process, not after the holder's wait.
func closeStdio() { unix.CloseRange(0, 2, 0) }

// encodeRemovals writes dirs into b, the start of the child's mapping,
// as the child reads them after their count (the first word, leave's):
// the address of each one's path, then the paths, each ended by a NUL.
// It reports false when they do not fit.
func encodeRemovals(b []byte, dirs []string) bool {
	paths := 8 + 8*len(dirs)
	if paths > len(b) {
		return false
	}
	for i, d := range dirs {
		if paths+len(d)+1 > len(b) {
			return false
		}
		binary.LittleEndian.PutUint64(b[8+8*i:], uint64(uintptr(unsafe.Pointer(&b[paths]))))
		paths += copy(b[paths:], d)
		b[paths] = 0
		paths++
	}
	return true
}
