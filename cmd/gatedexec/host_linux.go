//go:build linux

package main

import (
	"os"

	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/linux"
)

// init stops a helper invocation that reached Go: the C helper in
// sandbox/linux takes such a process over from an ELF constructor, so
// getting here means it did not run, and the command must not either.
func init() {
	if linux.IsHelper(os.Args) {
		linux.HelperMain()
	}
}

// hostRunner returns this host's sandbox backend: Landlock, seccomp and namespaces.
func hostRunner() sandbox.Runner { return &linux.Runner{} }

// hostLayers reports the layers p would get on this host and the ones it
// needs that are missing.
func hostLayers(p *sandbox.Profile) (layers, missing []string) {
	return sandbox.PlanLayers(p, hostCapabilities())
}

// hostCapabilities probes the kernel features the Linux backend uses.
func hostCapabilities() sandbox.Capabilities { return linux.Probe() }
