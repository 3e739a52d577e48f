//go:build linux

package linux

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/gatedexec/gatedexec/sandbox"
)

// PathRule is one Landlock path rule: Path gets read (and execute) access,
// plus write access when Write is set.
type PathRule struct {
	Path  string
	Write bool
}

// devWritable are device files every program expects to write; they grant
// nothing beyond themselves.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// landlockRules returns the path rules for p, in the order they are added.
// Paths that do not exist are left out (they cannot be opened for a rule,
// and a missing path grants nothing).
func landlockRules(p *sandbox.Profile) []PathRule {
	var rules []PathRule
	if p.ReadAll {
		rules = append(rules, PathRule{Path: "/"})
	} else {
		for _, r := range p.Read {
			rules = append(rules, PathRule{Path: r})
		}
	}
	for _, w := range p.Write {
		rules = append(rules, PathRule{Path: w, Write: true})
	}
	for _, d := range devWritable {
		rules = append(rules, PathRule{Path: d, Write: true})
	}
	return rules
}

// writableDirAccess is what a writable directory grants: every file right
// but the making of device nodes. A node made there for a device (as root
// can) would open the device under a writable path, a write that Landlock
// refuses at its /dev path.
const writableDirAccess = llsyscall.AccessFSExecute | llsyscall.AccessFSReadFile | llsyscall.AccessFSReadDir |
	llsyscall.AccessFSWriteFile | llsyscall.AccessFSTruncate | llsyscall.AccessFSRemoveDir | llsyscall.AccessFSRemoveFile |
	llsyscall.AccessFSMakeDir | llsyscall.AccessFSMakeReg | llsyscall.AccessFSMakeSock | llsyscall.AccessFSMakeFifo |
	llsyscall.AccessFSMakeSym | llsyscall.AccessFSRefer

// fsRightsByABI holds, for each Landlock ABI, every filesystem right the
// kernel knows at it: ABI 2 added refer, 3 truncate, 5 ioctl on devices.
var fsRightsByABI = []uint64{
	0,
	1<<13 - 1, // 1: execute ... make_sym
	1<<14 - 1, // 2: refer
	1<<15 - 1, // 3: truncate
	1<<15 - 1, // 4: network only
	1<<16 - 1, // 5: ioctl_dev
	1<<16 - 1, // 6: scopes only
	1<<16 - 1, // 7: logging only
}

// fsRights returns the filesystem rights of want that the kernel's ABI
// has: the ruleset the runner builds handles all of them, and a rule may
// name no other.
func fsRights(abi int, want uint64) uint64 {
	if abi <= 0 {
		return 0
	}
	return want & fsRightsByABI[min(abi, len(fsRightsByABI)-1)]
}

// ptsAccess is what the command's own devpts grants: opening its ptys
// (the ptmx node and the pts/N it allocates) and their ioctls.
const ptsAccess = uint64(llsyscall.AccessFSReadFile | llsyscall.AccessFSWriteFile | llsyscall.AccessFSReadDir | llsyscall.AccessFSIoctlDev)

// landlockConfig is the Landlock configuration for p at the best ABI up to
// MaxLandlockABI: all file rights; TCP bind/connect and abstract
// unix sockets only when the network is off, and signals always scoped to
// the sandbox.
func landlockConfig(p *sandbox.Profile) landlock.Config {
	cfg := landlock.V7
	// An isolated or proxied network is its own namespace: loopback and
	// abstract sockets there reach nothing outside (the proxy judges what
	// leaves), so Landlock leaves them alone.
	if p.Network != sandbox.NetworkOff {
		cfg.HandledAccessNet = 0
		cfg.Scoped &^= llsyscall.ScopeAbstractUnixSocket
	}
	return cfg.BestEffort()
}

// newRulesetFD builds p's Landlock ruleset in the calling process, so the
// helper only has to call landlock_restrict_self on it.
//
// connectOnly, when given, makes the ruleset handle TCP bind and connect
// whatever p's network mode, and lets the command connect to those ports
// alone: the egress fallback, whose proxy is on the host's loopback.
func newRulesetFD(p *sandbox.Profile, connectOnly ...uint16) (fd int, flags uint32, err error) {
	cfg := landlockConfig(p)
	var rules []landlock.Rule
	if len(connectOnly) > 0 {
		off := *p
		off.Network = sandbox.NetworkOff
		cfg = landlockConfig(&off)
		for _, port := range connectOnly {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	for _, r := range landlockRules(p) {
		st, err := os.Stat(r.Path)
		if err != nil {
			continue
		}
		switch {
		case st.IsDir() && r.Write:
			rules = append(rules, landlock.PathAccess(writableDirAccess, r.Path))
		case st.IsDir():
			rules = append(rules, landlock.RODirs(r.Path))
		case r.Write:
			rules = append(rules, landlock.RWFiles(r.Path).WithIoctlDev())
		default:
			rules = append(rules, landlock.ROFiles(r.Path))
		}
	}
	fd, flags, err = cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock ruleset: %w", err)
	}
	return fd, flags, nil
}
