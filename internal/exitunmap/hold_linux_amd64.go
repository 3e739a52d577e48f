package exitunmap

import (
	"encoding/binary"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spawn clones a child that shares this process's memory and, on the
// stack it is given (its top), blocks every signal, closes descriptors 0
// to 2 and waits until pidfd is readable, then removes the directories
// of removals (encodeRemovals), having closed every descriptor above 2
// first when there are any, and exits. It returns the child's pid, or
// a negated errno.
func spawn(pidfd int32, stack, removals uintptr) int64

// canHold says whether hold can leave anything to a child.
const canHold = true

// holderStack is the size of the holder's stack: it keeps one pollfd.
const holderStack = 4096

// hold starts the child that holds this process's memory until the
// process has exited, and then removes dirs: the stdio streams, which its
// caller may read until their end, are closed in the child at once;
// every other descriptor stays open in it until the process has exited,
// so none is released earlier than the process's own exit would release
// it (then, with dirs to remove, closed before them; else at its exit).
// It reports whether the child was started.
func hold(dirs []string) bool {
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	return holdUntil(pidfd, dirs) > 0
}

// holdUntil starts a child holding this process's memory until pidfd is
// readable, then removing dirs, and returns its pid, or 0 when none was
// started.
func holdUntil(pidfd int, dirs []string) int {
	if pidfd <= 2 {
		// The child closes 0 to 2: a pidfd among them (stdio closed when
		// this process started) moves above.
		moved, err := unix.FcntlInt(uintptr(pidfd), unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			return 0
		}
		pidfd = moved
	}
	// A mapping of its own: nothing of Go's is ever placed there, so the
	// child's writes can touch nothing this process still uses.
	// The removals go below the stack: the child reads them there
	// after the process has exited, when nothing of Go's is left.
	m, err := unix.Mmap(-1, 0, maxRemovalBytes+holderStack, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0
	}
	if !encodeRemovals(m[:maxRemovalBytes], dirs) {
		unix.Munmap(m)
		return 0
	}
	base := uintptr(unsafe.Pointer(&m[0]))
	pid := spawn(int32(pidfd), base+uintptr(len(m)), base)
	if pid <= 0 {
		unix.Munmap(m)
		return 0
	}
	return int(pid)
}

// encodeRemovals writes dirs into b, the start of the child's mapping,
// as the child reads them: their count, then the address of each one's
// path, then the paths, each ended by a NUL. It reports false when they
// do not fit.
func encodeRemovals(b []byte, dirs []string) bool {
	paths := 8 + 8*len(dirs)
	if paths > len(b) {
		return false
	}
	binary.LittleEndian.PutUint64(b, uint64(len(dirs)))
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
