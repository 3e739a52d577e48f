package sandbox

import "fmt"

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
}

// Layer names as reported in Result.Layers and the audit record.
const (
	LayerNoNewPrivs = "no_new_privs"
	LayerSetsid     = "setsid"
	LayerSeccomp    = "seccomp"
	LayerMountNS    = "mountns"
	LayerNetNS      = "netns"
	LayerRlimits    = "rlimits"
	// LayerPIDNS is a PID namespace with its own /proc.
	LayerPIDNS = "pidns"
	// LayerNoCaps is the empty capability sets (effective, permitted,
	// inheritable, ambient, bounding) the command is started with.
	LayerNoCaps = "no_caps"
	// LayerLandlock is the name of a missing Landlock layer; an applied one
	// is reported as LandlockLayer(abi).
	LayerLandlock = "landlock"
)

// MaxLandlockABI is the highest Landlock ABI the backend asks for; a newer
// kernel is used at this level.
const MaxLandlockABI = 7

// LandlockLayer names the Landlock layer applied at the given ABI.
func LandlockLayer(abi int) string {
	return fmt.Sprintf("landlock-v%d", min(abi, MaxLandlockABI))
}

// PlanLayers returns the layers the Linux backend applies for p on a host
// with caps, and those p needs that the host cannot give. Under Strict
// enforcement a non-empty missing list means the command must not run.
func PlanLayers(p *Profile, caps Capabilities) (layers, missing []string) {
	layers = append(layers, LayerNoNewPrivs)
	if !p.NoSetsid {
		layers = append(layers, LayerSetsid)
	}
	if !p.Unrestricted {
		if caps.LandlockABI > 0 {
			layers = append(layers, LandlockLayer(caps.LandlockABI))
		} else {
			missing = append(missing, LayerLandlock)
		}
		if caps.Seccomp {
			layers = append(layers, LayerSeccomp)
		} else {
			missing = append(missing, LayerSeccomp)
		}
		userOK := caps.Root || caps.UserNS
		if p.needsMountNS() {
			if caps.MountNS && userOK {
				layers = append(layers, LayerMountNS)
			} else {
				missing = append(missing, LayerMountNS)
			}
		}
		if p.needsNetNS() {
			if caps.NetNS && userOK {
				layers = append(layers, LayerNetNS)
			} else {
				missing = append(missing, LayerNetNS)
			}
		}
		if p.IsolatesPIDs() {
			if caps.PIDNS && userOK {
				layers = append(layers, LayerPIDNS)
			} else {
				missing = append(missing, LayerPIDNS)
			}
		}
		// Dropping every capability needs no namespace: root drops its
		// own, and a user namespace's are gone at the command's exec.
		layers = append(layers, LayerNoCaps)
	}
	if p.Limits.hasRlimits() {
		layers = append(layers, LayerRlimits)
	}
	return layers, missing
}

func (l Limits) hasRlimits() bool {
	return l.NoFile != 0 || l.NProc != 0 || l.FSize != 0 || l.CPU != 0 || l.AS != 0
}
