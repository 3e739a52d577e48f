package sandbox

import (
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// nobody is the unprivileged user a root test switches to.
const nobody = 65534

// asUnprivileged runs f as nobody when the test runs as root, so that
// file permissions apply to it (root's CAP_DAC_OVERRIDE bypasses them).
// Only f's OS thread changes its effective ids, through the raw system
// calls (syscall.Setresuid would change every thread of the test binary);
// the saved ids stay root's, so the thread takes them back after. A thread
// that could not is never unlocked, and Go ends it with the goroutine.
func asUnprivileged(t *testing.T, f func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		f()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		const keep = ^uintptr(0) // -1: leave that id as it is
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, keep, nobody, keep); e != 0 {
			t.Errorf("setresgid: %v", e)
			return
		}
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, keep, nobody, keep); e != 0 {
			t.Errorf("setresuid: %v", e)
			return
		}
		f()
		_, _, eu := unix.RawSyscall(unix.SYS_SETRESUID, keep, 0, keep)
		_, _, eg := unix.RawSyscall(unix.SYS_SETRESGID, keep, 0, keep)
		if eu == 0 && eg == 0 {
			runtime.UnlockOSThread()
		}
	}()
	<-done
}
