//go:build linux

package linux

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/owndir"
	"github.com/gatedexec/gatedexec/sandbox"
)

// A network-off run has a network namespace of its own only so that the
// host's abstract unix sockets are neither reachable nor bindable from
// it (TCP is refused by Landlock and seccomp anyway). Making one costs
// 0.33 ms of the helper's start and its teardown more, in the kernel's
// background, after the run; a namespace that served one run can serve
// the next, since nothing of a run outlives it there: every process of
// the run dies with its PID namespace, and none holds a capability to
// change the namespace (no interface, route or sysctl of it can be set).
// So a Runner run as root keeps up to GX_KEPT_NETNS_MAX of them, bound
// in KeptNetNS, and a prestarted helper joins one no other helper holds
// (helper_linux.c, join_kept_netns). What a run could still do to the
// next, reach an abstract socket a process of it left in flight, Landlock
// forbids: the run's domain is scoped (ABI 6), and it reaches no socket
// made outside it. Without root the namespace would belong to the run's
// own user namespace, so there is none to keep.

// KeptNetNSDir is where a Runner run as root keeps network namespaces
// (Runner.KeptNetNS): a tmpfs, gone with a reboot as they are.
const KeptNetNSDir = "/run/gatedexec/netns"

// scopeABI is the Landlock ABI that scopes abstract unix sockets.
const scopeABI = 6

// keptNetFor reports whether a run of p with the namespaces unshare may
// take a kept network namespace: a network-off run as root, whose
// processes all end with its PID namespace, and which Landlock scopes.
func (r *Runner) keptNetFor(p *sandbox.Profile, unshare uint32) bool {
	const need = unix.CLONE_NEWNET | unix.CLONE_NEWPID
	return r.KeptNetNS != "" && unshare&need == need && unshare&unix.CLONE_NEWUSER == 0 &&
		p.Network == sandbox.NetworkOff && !p.Unrestricted && r.host().LandlockABI >= scopeABI
}

// openKeptNetDir opens dir, made (0700) when missing, for the helper; nil
// when it cannot, or dir is not a directory only this user can write (a
// slot someone else could plant would be joined by the next run).
func openKeptNetDir(dir string) *os.File {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	d, err := owndir.Open(dir)
	if err != nil {
		return nil
	}
	return d
}

// withFileAt returns files (ExtraFiles, from descriptor 3) with f at
// descriptor fd.
func withFileAt(files []*os.File, fd int, f *os.File) []*os.File {
	for len(files) < fd-2 {
		files = append(files, nil)
	}
	files[fd-3] = f
	return files
}
