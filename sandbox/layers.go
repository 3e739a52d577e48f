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
	// LayerEgressFallback is what a best-effort profile in mode "proxy"
	// gets where no network namespace can be made: the proxy's endpoint
	// on the host's loopback, Landlock letting the command connect to that
	// port alone and seccomp refusing UDP. Only proxy-aware clients reach
	// anything; the command could still reach that port on another host.
	LayerEgressFallback = "egress-fallback"
	// LayerNoCaps is the empty capability sets (effective, permitted,
	// inheritable, ambient, bounding) the command is started with.
	LayerNoCaps = "no_caps"
	// LayerLandlock is the name of a missing Landlock layer; an applied one
	// is reported as LandlockLayer(abi).
	LayerLandlock = "landlock"
)
