package linux

// The layer plan is data, portable like the profile model: it builds on
// every OS so that doctor and profiles show can report a Linux host's
// layers wherever gatedexec runs; probing and applying them is Linux-only.

import (
	"strconv"

	"github.com/gatedexec/gatedexec/sandbox"
)

// Capabilities is what a host's kernel offers the Linux backend. Other
// backends report what maps onto it (e.g. only the process layers).
type Capabilities struct {
	// LandlockABI is the highest Landlock ABI the kernel supports, 0 if none.
	LandlockABI int `json:"landlock_abi"`
	// Seccomp is true when seccomp filters can be installed.
	Seccomp bool `json:"seccomp"`
	// UserNS, MountNS and NetNS are true when a child could actually be
	// cloned into a new namespace of that kind.
	UserNS  bool `json:"user_ns"`
	MountNS bool `json:"mount_ns"`
	NetNS   bool `json:"net_ns"`
	// PIDNS is true when a child could be made init of a new PID
	// namespace with a /proc of its own mounted.
	PIDNS bool `json:"pid_ns"`
	// Root is true when gatedexec runs as uid 0, so mount and network
	// namespaces need no user namespace.
	Root bool `json:"root"`
	// Helper, when not empty, says why the sandbox helper cannot run
	// (a gatedexec built without it): no namespace can then be used.
	Helper string `json:"helper,omitempty"`
}

// LayerHelper is what a restricted profile misses on a gatedexec built
// without its sandbox helper (Capabilities.Helper).
const LayerHelper = "helper"

// MaxLandlockABI is the highest Landlock ABI the backend asks for; a newer
// kernel is used at this level.
const MaxLandlockABI = 7

// LandlockLayer names the Landlock layer applied at the given ABI. Not
// with fmt: it was the one use of fmt on a sandboxed run's way, whose
// first use in a process costs its printer's set-up.
func LandlockLayer(abi int) string {
	return "landlock-v" + strconv.Itoa(min(abi, MaxLandlockABI))
}

// PlanLayers returns the layers the Linux backend applies for p on a host
// with caps, and those p needs that the host cannot give. Under Strict
// enforcement a non-empty missing list means the command must not run.
func PlanLayers(p *sandbox.Profile, caps Capabilities) (layers, missing []string) {
	layers = append(layers, sandbox.LayerNoNewPrivs)
	if !p.NoSetsid {
		layers = append(layers, sandbox.LayerSetsid)
	}
	if !p.Unrestricted && caps.Helper != "" {
		// Every restricted layer is the helper's to apply: none is, and
		// the runner refuses the run (fail closed, best effort or not).
		return []string{}, []string{LayerHelper}
	}
	if !p.Unrestricted {
		if caps.LandlockABI > 0 {
			layers = append(layers, LandlockLayer(caps.LandlockABI))
		} else {
			missing = append(missing, sandbox.LayerLandlock)
		}
		if caps.Seccomp {
			layers = append(layers, sandbox.LayerSeccomp)
		} else {
			missing = append(missing, sandbox.LayerSeccomp)
		}
		userOK := caps.Root || caps.UserNS
		if p.NeedsMountNS() {
			if caps.MountNS && userOK {
				layers = append(layers, sandbox.LayerMountNS)
			} else {
				missing = append(missing, sandbox.LayerMountNS)
			}
		}
		if p.NeedsNetNS() {
			if caps.NetNS && userOK {
				layers = append(layers, sandbox.LayerNetNS)
				if p.Network == sandbox.NetworkProxy {
					layers = append(layers, sandbox.LayerEgress)
				}
			} else {
				missing = append(missing, sandbox.LayerNetNS)
				if p.Network == sandbox.NetworkProxy {
					missing = append(missing, sandbox.LayerEgress)
					if p.Enforcement == sandbox.BestEffort && caps.LandlockABI >= 4 {
						layers = append(layers, sandbox.LayerEgressFallback)
					}
				}
			}
		}
		if p.IsolatesPIDs() {
			if caps.PIDNS && userOK {
				layers = append(layers, sandbox.LayerPIDNS)
			} else {
				missing = append(missing, sandbox.LayerPIDNS)
			}
		}
		// Dropping every capability needs no namespace: root drops its
		// own, and a user namespace's are gone at the command's exec.
		layers = append(layers, sandbox.LayerNoCaps)
	}
	if p.Limits.HasRlimits() {
		layers = append(layers, sandbox.LayerRlimits)
	}
	return layers, missing
}
