package exitunmap

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spawn clones a child that shares this process's memory and, on the
// stack it is given (its top), blocks every signal, closes descriptors 0
// to 2 and waits until pidfd is readable, then exits. It returns the
// child's pid, or a negated errno.
func spawn(pidfd int32, stack uintptr) int64

// holderStack is the size of the holder's stack: it keeps one pollfd.
const holderStack = 4096

// hold starts the child that holds this process's memory until the
// process has exited: the stdio streams, which its caller may read until
// their end, are closed in the child at once; every other descriptor
// stays open in it as long as it lives, so none is released earlier than
// the process's own exit would release it.
func hold() {
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return
	}
	holdUntil(pidfd)
}

// holdUntil starts a child holding this process's memory until pidfd is
// readable and returns its pid, or 0 when none was started.
func holdUntil(pidfd int) int {
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
	stack, err := unix.Mmap(-1, 0, holderStack, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0
	}
	pid := spawn(int32(pidfd), uintptr(unsafe.Pointer(&stack[0]))+holderStack)
	if pid <= 0 {
		unix.Munmap(stack)
		return 0
	}
	return int(pid)
}
