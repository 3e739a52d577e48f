//go:build linux

package linux

import (
	"errors"
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

// fsRights returns the filesystem rights of want that the kernel's ABI
// has: the ruleset the runner builds handles all of them, and a rule may
// name no other.
func fsRights(abi int, want uint64) uint64 {
	if abi <= 0 {
		return 0
	}
	return want & uint64(landlockConfigs[min(abi, MaxLandlockABI)].HandledAccessFS)
}

// ptsAccess is what the command's own devpts grants: opening its ptys
// (the ptmx node and the pts/N it allocates) and their ioctls.
const ptsAccess = uint64(llsyscall.AccessFSReadFile | llsyscall.AccessFSWriteFile | llsyscall.AccessFSReadDir | llsyscall.AccessFSIoctlDev)

// landlockConfigs are the configurations the backend asks for, by the
// kernel's Landlock ABI: each handles every right that ABI knows, so the
// ruleset is built for the kernel as it is, not for a newest one that is
// then cut down. Index MaxLandlockABI is the last; a newer kernel gets it.
var landlockConfigs = [MaxLandlockABI + 1]landlock.Config{
	1: landlock.V1, 2: landlock.V2, 3: landlock.V3, 4: landlock.V4,
	5: landlock.V5, 6: landlock.V6, 7: landlock.V7,
}

// landlockConfig is the Landlock configuration for p on a kernel with
// Landlock ABI abi (> 0): all file rights; TCP bind/connect and abstract
// unix sockets only when the network is off, and signals always scoped
// to the sandbox.
func landlockConfig(p *sandbox.Profile, abi int) landlock.Config {
	cfg := landlockConfigs[max(1, min(abi, MaxLandlockABI))]
	// An isolated or proxied network is its own namespace: loopback and
	// abstract sockets there reach nothing outside (the proxy judges what
	// leaves), so Landlock leaves them alone.
	if p.Network != sandbox.NetworkOff {
		cfg.HandledAccessNet = 0
		cfg.Scoped &^= llsyscall.ScopeAbstractUnixSocket
	}
	return cfg
}

// errLandlockTooOld marks a ruleset the kernel's ABI cannot express.
var errLandlockTooOld = errors.New("kernel Landlock ABI cannot grant the profile's rights")

// landlockPathRules are p's rules as the kernel with ABI abi can take
// them: each right it does not know is left out, and the ruleset then
// does not handle it either. The one downgrade that cannot be made is
// refer (ABI 2): ABI 1 refuses every rename or link across directories
// and no rule can allow one, so a writable directory is refused
// (errLandlockTooOld) rather than granted less than it says.
func landlockPathRules(p *sandbox.Profile, abi int) ([]landlock.Rule, error) {
	var rules []landlock.Rule
	for _, r := range landlockRules(p) {
		st, err := os.Stat(r.Path)
		if err != nil {
			continue
		}
		var rights uint64
		switch {
		case st.IsDir() && r.Write:
			if fsRights(abi, llsyscall.AccessFSRefer) == 0 {
				return nil, fmt.Errorf("%s: a writable directory needs refer (ABI 2): %w", r.Path, errLandlockTooOld)
			}
			rights = writableDirAccess
		case st.IsDir():
			rights = readDirAccess
		case r.Write:
			rights = writableFileAccess
		default:
			rights = readFileAccess
		}
		rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(fsRights(abi, rights)), r.Path))
	}
	return rules, nil
}

// readDirAccess, readFileAccess and writableFileAccess are what a
// readable directory, a readable file and a writable file grant.
const (
	readDirAccess      = llsyscall.AccessFSExecute | llsyscall.AccessFSReadFile | llsyscall.AccessFSReadDir
	readFileAccess     = llsyscall.AccessFSExecute | llsyscall.AccessFSReadFile
	writableFileAccess = readFileAccess | llsyscall.AccessFSWriteFile | llsyscall.AccessFSTruncate | llsyscall.AccessFSIoctlDev
)

// newRulesetFD builds p's Landlock ruleset in the calling process for a
// kernel with Landlock ABI abi, so the helper only has to call
// landlock_restrict_self on it. fd is -1 when the ABI cannot enforce the
// profile's rules (errLandlockTooOld): the layer is then missing.
//
// connectOnly, when given, makes the ruleset handle TCP bind and connect
// whatever p's network mode, and lets the command connect to those ports
// alone: the egress fallback, whose proxy is on the host's loopback.
func newRulesetFD(p *sandbox.Profile, abi int, connectOnly ...uint16) (fd int, flags uint32, err error) {
	rules, err := landlockPathRules(p, abi)
	if errors.Is(err, errLandlockTooOld) {
		return -1, 0, nil
	}
	if err != nil {
		return -1, 0, err
	}
	cfg := landlockConfig(p, abi)
	if len(connectOnly) > 0 {
		off := *p
		off.Network = sandbox.NetworkOff
		cfg = landlockConfig(&off, abi)
		for _, port := range connectOnly {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	fd, flags, err = cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock ruleset: %w", err)
	}
	return fd, flags, nil
}
