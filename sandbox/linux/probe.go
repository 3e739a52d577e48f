//go:build linux

package linux

import (
	"os"
	"os/exec"
	"syscall"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

func landlockABI() int {
	v, err := llsyscall.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// seccompAvailable reports whether the kernel has seccomp filters: a
// SECCOMP_GET_ACTION_AVAIL query fails with ENOSYS/EINVAL without them.
func seccompAvailable() bool {
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafePointer(&action)))
	return e == 0
}

// Probe finds out what this host offers, trying each namespace by cloning
// a short-lived child (/bin/true) into it.
func Probe() sandbox.Capabilities {
	root := os.Geteuid() == 0
	try := func(flags uintptr) bool {
		attr := &syscall.SysProcAttr{Cloneflags: flags}
		if flags&unix.CLONE_NEWUSER != 0 {
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		}
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = attr
		return cmd.Run() == nil
	}
	var userFlag uintptr
	if !root {
		userFlag = unix.CLONE_NEWUSER
	}
	return sandbox.Capabilities{
		LandlockABI: landlockABI(),
		Seccomp:     seccompAvailable(),
		UserNS:      try(unix.CLONE_NEWUSER),
		MountNS:     try(userFlag | unix.CLONE_NEWNS),
		NetNS:       try(userFlag | unix.CLONE_NEWNET),
		Root:        root,
	}
}
