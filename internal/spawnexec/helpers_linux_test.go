//go:build linux

package spawnexec

import (
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// unsafe8 returns the memory of a CPU set, as sched_setaffinity takes it.
func unsafe8(s *unix.CPUSet) unsafe.Pointer { return unsafe.Pointer(s) }

// lockAndStart starts a sleeping child from a thread of its own, which
// ends when this returns (locked, it is not given back to the runtime).
// Not the main thread, which the runtime wedges rather than ends: there
// the start is made from another goroutine, which this one, locked,
// keeps off the main thread meanwhile.
func lockAndStart(t *testing.T, done chan<- *Child) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		other := make(chan *Child)
		go lockAndStart(t, other)
		c := <-other
		runtime.UnlockOSThread()
		done <- c
		return
	}
	c, err := Start("/bin/sleep", []string{"sleep", "60"}, nil, Attr{})
	if err != nil {
		t.Error(err)
		done <- nil
		return
	}
	if err := c.Execed(); err != nil {
		t.Error(err)
	}
	done <- c
}

// thisCPU returns the CPU the calling thread runs on.
func thisCPU(t *testing.T) int {
	t.Helper()
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		t.Fatal(e)
	}
	return int(cpu)
}
