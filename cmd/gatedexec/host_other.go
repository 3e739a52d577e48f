//go:build !linux && !darwin

package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/gatedexec/gatedexec/sandbox"
)

// hostRunner returns a backend that refuses every profile: this OS has no
// sandbox backend.
func hostRunner() sandbox.Runner { return noBackend{} }

// hostLayers reports that every layer is missing on this OS.
func hostLayers(p *sandbox.Profile) (layers, missing []string) {
	_, missing = sandbox.PlanLayers(p, sandbox.Capabilities{})
	return nil, missing
}

// hostCapabilities reports no kernel feature.
func hostCapabilities() sandbox.Capabilities { return sandbox.Capabilities{} }

type noBackend struct{}

func (noBackend) Run(context.Context, *sandbox.Command) (*sandbox.Result, error) {
	return nil, fmt.Errorf("no sandbox backend for %s: %w", runtime.GOOS, sandbox.ErrLayerUnavailable)
}
