//go:build darwin

package darwin

import (
	"os"

	"github.com/gatedexec/gatedexec/sandbox"
)

// LayerSeatbelt names the sandbox-exec layer in Result.Layers.
const LayerSeatbelt = "seatbelt"

// Layers reports the layers Run would apply for p on this host and those
// p needs that are missing. Seatbelt enforces protect, hide and isolated
// networking itself, so no other layer is ever needed.
func Layers(p *sandbox.Profile) (layers, missing []string) {
	if !p.Unrestricted {
		if _, err := os.Stat(SandboxExec); err == nil {
			layers = append(layers, LayerSeatbelt)
		} else {
			missing = append(missing, LayerSeatbelt)
		}
	}
	if len(rlimitArgs(p.Limits)) > 0 {
		layers = append(layers, sandbox.LayerRlimits)
	}
	if !p.NoSetsid {
		layers = append(layers, sandbox.LayerSetsid)
	}
	return layers, missing
}
