//go:build !linux && !darwin

package gate

import (
	"context"
	"fmt"
	"runtime"

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/linux"
)

// StopStrayHelper does nothing: this OS has no exec helper.
func StopStrayHelper([]string) {}

// hostRunner returns a backend that refuses every profile: this OS has no
// sandbox backend.
func hostRunner(bool, *exitunmap.Leave) sandbox.Runner { return noBackend{} }

// hostOwnDirs are the directories of this host's backend that belong to
// gatedexec: none.
func hostOwnDirs() []string { return nil }

// HostLayers reports that every layer is missing on this OS.
func HostLayers(p *sandbox.Profile) (layers, missing []string) {
	return PlanLayers(p, linux.Capabilities{})
}

// PlanLayers reports that every layer is missing on this OS.
func PlanLayers(p *sandbox.Profile, caps linux.Capabilities) (layers, missing []string) {
	_, missing = linux.PlanLayers(p, caps)
	return nil, missing
}

// HostCapabilities reports no kernel feature.
func HostCapabilities() linux.Capabilities { return linux.Capabilities{} }

type noBackend struct{}

func (noBackend) Run(context.Context, *sandbox.Command) (*sandbox.Result, error) {
	return nil, fmt.Errorf("no sandbox backend for %s: %w", runtime.GOOS, sandbox.ErrLayerUnavailable)
}
