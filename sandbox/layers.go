package sandbox

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
	// LayerEgress is the network policy proxy of network mode "proxy":
	// the command reaches only the hosts its policy allows.
	LayerEgress = "egress"
	// LayerNoCaps is the empty capability sets (effective, permitted,
	// inheritable, ambient, bounding) the command is started with.
	LayerNoCaps = "no_caps"
	// LayerLandlock is the name of a missing Landlock layer; an applied one
	// is reported as LandlockLayer(abi).
	LayerLandlock = "landlock"
)
