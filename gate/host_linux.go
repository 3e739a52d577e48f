//go:build linux

package gate

import (
	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/linux"
)

// StopStrayHelper stops a gatedexec started with the sandbox helper's
// arguments: the helper is a program of its own (sandbox/linux), so
// whoever did it did not get the helper, and the command must not run.
// A program that sandboxes through a Gate calls it first in main or init
// with os.Args.
func StopStrayHelper(args []string) {
	if linux.IsHelper(args) {
		linux.HelperMain()
	}
}

// hostRunner returns this host's sandbox backend: Landlock, seccomp and
// namespaces; a long-lived engine's keeps between runs what a one-shot
// run makes and removes (Runner.LongLived). Every runner run as root
// shares the kept network namespaces (Runner.KeptNetNS). leaveToExit is
// Config.LeaveToExit (Runner.LeaveToExit).
func hostRunner(longLived bool, leaveToExit *exitunmap.Leave) sandbox.Runner {
	return &linux.Runner{LongLived: longLived, KeptNetNS: linux.KeptNetNSDir, LeaveToExit: leaveToExit}
}

// hostOwnDirs are the directories of this host's backend that belong to
// gatedexec (controlPaths): the kept network namespaces, whose slots a
// command that could write there would disturb.
func hostOwnDirs() []string { return []string{linux.KeptNetNSDir} }

// HostLayers reports the layers p would get on this host and the ones it
// needs that are missing.
func HostLayers(p *sandbox.Profile) (layers, missing []string) {
	return PlanLayers(p, HostCapabilities())
}

// PlanLayers reports the layers p would get on a host with caps, without
// probing it again.
func PlanLayers(p *sandbox.Profile, caps linux.Capabilities) (layers, missing []string) {
	return linux.PlanLayers(p, caps)
}

// HostCapabilities probes the kernel features the Linux backend uses.
func HostCapabilities() linux.Capabilities { return linux.Probe() }
