//go:build darwin

package main

import (
	"os"

	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/darwin"
)

// hostRunner returns this host's sandbox backend: sandbox-exec.
func hostRunner() sandbox.Runner { return darwin.Runner{} }

// hostLayers reports the layers p would get on this host and the ones it
// needs that are missing.
func hostLayers(p *sandbox.Profile) (layers, missing []string) { return darwin.Layers(p) }

// hostCapabilities reports the Linux kernel features; macOS has none of
// them, and its seatbelt layer needs no capability probe.
func hostCapabilities() sandbox.Capabilities {
	return sandbox.Capabilities{Root: os.Geteuid() == 0}
}
