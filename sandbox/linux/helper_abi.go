//go:build linux

package linux

// The contract with the C helper, as helper/helper_linux.h defines it.
// gatedexec is built without cgo (the cgo runtime's start alone cost as
// much as the rest of `gatedexec version`), so it is spelled out here;
// TestHelperABI reads the header and fails on any drift.

// HelperArg is the helper's first argument: without it the helper runs
// nothing, and a gatedexec started with it refuses (HelperMain).
const HelperArg = "__gatedexec-sandbox-helper-v2__"

// A prestarted helper's second argument, the most descriptors it is
// sent (prestart.go), and the bit of their count that says the last is
// the egress socket.
const (
	prestartArg    = "prestarted"
	prestartFDs    = 5
	prestartEgress = 0x80
	// prestartMountNS is the data byte of the message carrying the
	// descriptor of a prestarted helper's mount namespace.
	prestartMountNS = 'N'
	// prestartCgroups is the byte that tells a prestarted helper it is
	// in its run's cgroups, or comes with the tasks files it moves itself
	// into them by, at most prestartCgroupFDs.
	prestartCgroups   = 'C'
	prestartCgroupFDs = 4
	// keptNetNSArg is a prestarted helper's fourth argument when it may
	// join a kept network namespace (keptnet.go), and keptNetNSMax the
	// number of them.
	keptNetNSArg = "kept-netns"
	keptNetNSMax = 16
	// spinArg is a prestarted helper's argument when the runner moved it
	// to CPUs of its own (asideNow): it polls for its run a moment before
	// it sleeps on it (GX_SPIN_NS).
	spinArg = "spin"
	// seccompAheadArg is a prestarted init's argument when its run's
	// seccomp program follows prestartCgroups, for the target it starts
	// ahead to load before the run comes.
	seccompAheadArg = "seccomp-ahead"
)

// File descriptors the runner hands the helper, and its failure status.
const (
	specFD     = 3
	errFD      = 4
	rulesetFD  = 5
	egressFD   = 6
	selfFD     = 7
	netnsFD    = 8
	helperFail = 125
)

// The helper's report tags.
const (
	reportNamespaces = "namespaces"
	reportNotFound   = "notfound"
	reportCannotExec = "cannotexec"
	// reportSignal says the target was killed by the signal that
	// follows: the helper, a PID namespace's init, exits 128+N instead.
	reportSignal = "signal"
	// reportEnd follows endMark: the target's wait status, once every
	// process of the namespace is gone (WaitEnd).
	reportEnd = "end"
)

// endMark is the byte before reportEnd: no report holds one otherwise.
const endMark = 0

// goAheadByte is the byte after the spec that lets the helper start the run
// (GX_GO_AHEAD): the end of the spec's pipe or socket without it starts
// nothing, so a runner killed before the go-ahead leaves no command
// running, not even until the helper's death signal.
const goAheadByte = 'G'

// The spec's magic, its largest size and its record tags
// (helper_spec.go).
const (
	specMagic       = "GXH1"
	maxSpec         = 64 << 20
	tagPath         = 'p'
	tagArg          = 'a'
	tagEnv          = 'e'
	tagFallbackPath = 'P'
	tagFallbackArg  = 'A'
	tagDir          = 'd'
	tagMount        = 'm'
	tagParentMntNS  = 'n'
	tagLoopback     = 'l'
	tagRlimit       = 'r'
	tagLandlock     = 'k'
	tagBPF          = 'b'
	tagUnshare      = 'u'
	tagCloseFDs     = 'c'
	tagDropCaps     = 'x'
	tagDev          = 'D'
	tagReopen       = 'o'
	tagTmp          = 't'
	tagKeep         = 'K'
	tagCtty         = 'T'
	tagEgress       = 'g'
	tagAffinity     = 'y'
)
