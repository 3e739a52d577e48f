//go:build linux

package linux

import (
	"os"

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

// Probe finds out what this host offers. Namespaces are tried the way
// the runner uses them: the helper creates them (with a user namespace
// when not root) and, for the mount namespace, makes the tree read-only
// but a write root and pins a directory, as every mount plan starts, then
// execs /bin/true. Creating a user namespace is not enough: some hosts
// (Ubuntu's AppArmor userns restriction) allow it but refuse the mounts
// inside, and before Linux 5.12 the read-only tree (mount_setattr) fails.
func Probe() Capabilities {
	root := os.Geteuid() == 0
	var userFlag uint32
	if !root {
		userFlag = unix.CLONE_NEWUSER
	}
	helper, herr := sealedHelper()
	if herr == nil {
		defer helper.Close()
	}
	try := func(s helperSpec) bool {
		s.Path, s.Argv = "/bin/true", []string{"true"}
		spec, err := s.encode()
		if herr != nil || err != nil {
			return false
		}
		code, _, err := runHelperSpec(helper, spec)
		return err == nil && code == 0
	}
	mntns, err := mountNSInode()
	tmp := os.TempDir()
	mounts := append(readOnlyTree(&sandbox.Profile{Write: []string{tmp}}), mountOp{Kind: mountPin, Path: tmp})
	return Capabilities{
		LandlockABI: landlockABI(),
		Seccomp:     seccompAvailable(),
		UserNS:      try(helperSpec{Unshare: unix.CLONE_NEWUSER}),
		// The runner takes an IPC namespace with every mount namespace.
		MountNS: err == nil && try(helperSpec{Unshare: userFlag | unix.CLONE_NEWNS | unix.CLONE_NEWIPC, ParentMntNS: mntns,
			Mounts: mounts}),
		NetNS: try(helperSpec{Unshare: userFlag | unix.CLONE_NEWNET, LoopbackUp: true}),
		// An init of its own mounts /proc: refused where the host's /proc
		// has parts masked (some containers) or the mount is not allowed.
		PIDNS: err == nil && try(helperSpec{Unshare: userFlag | unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWPID,
			ParentMntNS: mntns}),
		Root:   root,
		Helper: errString(herr),
	}
}

// errString is err's message, "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
