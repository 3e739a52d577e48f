//go:build linux && (amd64 || arm64)

package linux

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelSigaction is the kernel's struct sigaction on architectures with
// SA_RESTORER (amd64, arm64), as rt_sigaction(2) takes it.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// stopWith stops the calling process with sig (SIGTSTP or SIGSTOP) and
// returns once it is continued. For SIGTSTP the default action is put in
// place meanwhile, behind the runtime's back: the Go runtime keeps its own
// handler after signal.Reset, and that handler drops the signal. The
// runtime's handler is put back exactly as the kernel returned it.
func stopWith(sig unix.Signal) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var dfl, old kernelSigaction // handler 0 is SIG_DFL
	if sig != unix.SIGSTOP {
		if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)),
			uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
			return e
		}
	}
	// To this thread: the stop takes effect before tgkill returns.
	err := unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	if sig != unix.SIGSTOP {
		unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	}
	return err
}
