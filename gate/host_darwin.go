//go:build darwin

package gate

import (
	"os"

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/darwin"
	"github.com/gatedexec/gatedexec/sandbox/linux"
)

// StopStrayHelper does nothing: macOS has no exec helper.
func StopStrayHelper([]string) {}

// hostRunner returns this host's sandbox backend: sandbox-exec.
func hostRunner(bool, *exitunmap.Leave) sandbox.Runner { return darwin.Runner{} }

// hostOwnDirs are the directories of this host's backend that belong to
// gatedexec: none.
func hostOwnDirs() []string { return nil }

// HostLayers reports the layers p would get on this host and the ones it
// needs that are missing.
func HostLayers(p *sandbox.Profile) (layers, missing []string) { return darwin.Layers(p) }

// PlanLayers reports the layers p would get on this host; macOS needs no
// capability probe.
func PlanLayers(p *sandbox.Profile, _ linux.Capabilities) (layers, missing []string) {
	return darwin.Layers(p)
}

// HostCapabilities reports the Linux kernel features (linux.Capabilities,
// the portable part of that package); macOS has none of them, and its
// seatbelt layer needs no capability probe.
func HostCapabilities() linux.Capabilities {
	return linux.Capabilities{Root: os.Geteuid() == 0}
}
