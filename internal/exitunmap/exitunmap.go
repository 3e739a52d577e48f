// Package exitunmap ends a process without making its caller wait for
// the kernel to unmap the process's memory.
//
// A process's exit status reaches its parent only after the kernel has
// torn down its address space: for gatedexec, whose 10 MB binary a run
// maps for the most part, that was 0.2–0.4 ms of every command, about as
// long as all of its own work after a sandboxed command ends. Leave.Exit
// of a process that asked for it (HoldMemory) first clones a child that
// shares the memory, blocks every signal, closes its copies of the
// standard streams and waits until the process has exited; the memory
// then goes with the child, after the caller has the status.
// The work is the same; the caller no longer waits for it. The child
// costs its clone: a process that mapped little (a cached `check`) ends
// sooner without it.
//
// A Leave also gives that child empty directories to remove once the
// process has exited: removing a directory that is a mount point in
// another mount namespace (a sandboxed run's placeholder, mounted in the
// run's namespace until the process's exit drops it) waits out an RCU
// grace period, 0.15 ms of every such run here. The child then closes
// what the process left open first, which drops such a namespace, and
// the removal waits for nothing.
package exitunmap

import (
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Leave is what a process leaves to its exit: directories to remove once
// it has exited. Its zero value leaves nothing; it is safe for concurrent
// use.
type Leave struct {
	mu   sync.Mutex
	dirs []string
	size int // bytes the removals take in the child's mapping
	// memory says the unmapping goes to the child too (HoldMemory).
	memory bool
}

// maxRemovalBytes bounds what the removals take in the child's mapping:
// a page beside its stack.
const maxRemovalBytes = 4096

// RemoveDir leaves the removal of the directory at path, an absolute
// path, to the exit: it is removed once the process has exited and what
// it left open is closed, if it is empty then. It reports false, leaving
// nothing, where Exit cannot (this platform, or more removals than it
// holds): the caller removes it itself.
func (l *Leave) RemoveDir(path string) bool {
	if !canHold || len(path) < 2 || path[0] != '/' || strings.IndexByte(path, 0) >= 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	size := l.size
	if size == 0 {
		size = 8 // the count
	}
	size += 8 + len(path) + 1
	if size > maxRemovalBytes {
		return false
	}
	l.size = size
	l.dirs = append(l.dirs, path)
	return true
}

// HoldMemory asks Exit to leave the unmapping of the process's memory to
// a child, as it does anyway when directories are left to it: for a
// process that mapped much, a sandboxed run's (0.12 ms sooner with it,
// in turns run by run), not for one that mapped little, whose exit then
// costs more than the unmapping (a cached `check`, 0.025 ms later). A nil
// Leave holds nothing.
func (l *Leave) HoldMemory() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.memory = true
	l.mu.Unlock()
}

// HoldsMemory reports whether HoldMemory was called.
func (l *Leave) HoldsMemory() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.memory
}

// Exit ends the process with code and removes the directories left to it.
// Where this platform has a child to leave them to (Linux on amd64), and
// it was asked to (HoldMemory) or has directories to remove, the
// unmapping of the process's memory and the removals are left to that
// child, which makes them once the process has exited; else the memory
// is unmapped before the status is reported as usual, and the directories
// removed before the exit. A child that cannot be made (no pidfd, a
// seccomp filter refusing clone) changes nothing but the wait.
func (l *Leave) Exit(code int) {
	// Locked for good: a removal asked for from here on could not be
	// made, and blocks until the exit instead.
	l.mu.Lock()
	dirs := l.dirs
	if !l.holds() || !hold(dirs) {
		for _, d := range dirs {
			unix.Rmdir(d)
		}
	}
	os.Exit(code)
}

// holds says whether Exit leaves anything to a child: the memory, or
// directories to remove. Called with l.mu held.
func (l *Leave) holds() bool {
	return l.memory || len(l.dirs) > 0
}
