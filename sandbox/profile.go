// Package sandbox holds the resolved profile model shared by the OS
// backends, the Runner interface they implement, denial detection and the
// escalation plan.
//
// A Profile here is already resolved: every path token has been expanded
// to an absolute, cleaned path for one host and workspace. Loading TOML and
// resolving tokens is the job of package profiles.
package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// Enforcement says what happens when a layer a profile needs cannot be applied.
type Enforcement string

const (
	// Strict refuses to run the command when a needed layer is missing.
	Strict Enforcement = "strict"
	// BestEffort runs the command, warns once and records what was missing.
	BestEffort Enforcement = "best-effort"
)

// NetworkMode is the network access a profile grants.
type NetworkMode string

const (
	// NetworkOff denies TCP bind/connect (Landlock) and non-unix sockets (seccomp).
	NetworkOff NetworkMode = "off"
	// NetworkOn leaves the network alone.
	NetworkOn NetworkMode = "on"
	// NetworkIsolated gives the command its own network namespace with loopback only.
	NetworkIsolated NetworkMode = "isolated"
	// NetworkProxy gives the command a network namespace of its own whose
	// every TCP connection and DNS query reaches gatedexec's proxy, which
	// lets through only what Hosts allows (DESIGN §9).
	NetworkProxy NetworkMode = "proxy"
)

// Profile is a resolved sandbox profile: what one command may touch.
type Profile struct {
	// Name is the profile's name ("workspace-write") or the file it came from.
	Name        string
	Description string
	Enforcement Enforcement

	// Unrestricted is true for a profile with no filesystem or network
	// restriction (full-access); backends then apply only the process layers.
	Unrestricted bool

	// ReadAll grants read (and execute) access to the whole filesystem;
	// otherwise only Read paths are readable.
	ReadAll bool
	Read    []string // absolute, cleaned paths
	Write   []string // absolute, cleaned paths; writable implies readable
	Protect []string // read-only even inside a Write path; may not exist yet
	Hide    []string // appear empty to the command
	// MakeDirs are Write paths the backend makes before the run when they
	// are missing: the toolchain caches a tool would make on first use.
	MakeDirs []string
	// Control holds gatedexec's own rules, state, cache and audit log (see
	// WithControl): read-only wherever Write covers them, escalations
	// included. No escalation is planned for a denial under them.
	Control []string

	// PrivateTmp holds the directories (/tmp, $TMPDIR) the command gets
	// an empty one of its own for, private to the run: the host's hold
	// the sockets of its daemons (tmux, ssh-agent, X11) and other users'
	// files. Paths the profile names below them stay the host's.
	PrivateTmp []string

	Network NetworkMode
	// Hosts is the host policy of network mode "proxy": the profile's
	// allow_hosts, deny_hosts and connect_to, and the rules files'
	// network_rule entries.
	Hosts       egress.Policy
	UnixSockets bool // false: AF_UNIX sockets are denied too
	// Sockets are the host's pathname sockets outside the Write paths
	// the command may connect to; every other one it cannot reach.
	Sockets []string

	// EnvDeny holds environment variable names or glob patterns (* only)
	// removed from the command's environment.
	EnvDeny []string
	// NoSetsid keeps the command in the caller's session (default: new session).
	NoSetsid bool
	// SharePIDs keeps a restricted command in the caller's PID namespace
	// (profile key process.pid_namespace = false). By default it gets its
	// own, with its own /proc: it sees and reaches no process but its own
	// tree, and the tree ends with the run.
	SharePIDs bool
	// NoPty passes a terminal stdin to the command as it is (profile key
	// process.pty = false). By default, with a session of its own, the
	// command then gets a pty of its own instead (see the Linux runner).
	NoPty bool

	Limits Limits

	// Workspace is the workspace the profile was resolved for, "" when
	// unknown. Where a Write path covers it, a run's changes to the git
	// control files of the repositories in it are reported (GitTamper).
	Workspace string
	// Watch holds more paths whose creation or change during a run is
	// reported with the git control files': the agent, editor and shell
	// settings of AgentConfig, protected where they exist and, where they
	// do not, left unheld (a directory of ours there would be debris).
	Watch []string
	// ScanCache is a directory of gatedexec's own, private to the user
	// and out of the command's reach (a control path), where the scan of
	// the workspace for GitTamper keeps what it read between runs, so
	// that the next reads only what changed; "" keeps nothing. Not part
	// of what the profile grants: left out of its JSON and digest.
	ScanCache string `json:"-"`
	// BuildCache is where a backend keeps what it builds from the profile
	// alone (the Linux backend: its seccomp program) between runs; the
	// zero value keeps nothing. Not part of what the profile grants:
	// left out of its JSON and digest.
	BuildCache BuildCache `json:"-"`
}

// BuildCache is a cache directory of gatedexec's own, private to the user
// and out of the command's reach (a control path), and the build of
// gatedexec its entries are keyed on: another build may build otherwise.
type BuildCache struct {
	Dir, Build string
}

// WatchesGit reports whether a run under p is scanned for git control
// files it changed: a restricted profile that can write its workspace.
func (p *Profile) WatchesGit() bool {
	return !p.Unrestricted && p.Workspace != "" && Under(p.Workspace, p.Write)
}

// Limits holds optional resource limits; a zero field means "not set".
type Limits struct {
	NoFile uint64
	NProc  uint64
	FSize  uint64 // bytes
	CPU    uint64 // seconds
	AS     uint64 // bytes
	// Memory caps the memory of the whole run (a cgroup: root only, where
	// the host has the controller), in bytes or as MemoryPercent of the
	// host's memory.
	Memory        uint64
	MemoryPercent int
	Timeout       time.Duration
}

// Rlimit is one resource limit by its profile key (DESIGN §5).
type Rlimit struct {
	Name  string // "nofile", "nproc", "fsize", "cpu" or "as"
	Value uint64 // 0 is unset
}

// HasRlimits reports whether l sets any rlimit.
func (l Limits) HasRlimits() bool {
	for _, r := range l.Rlimits() {
		if r.Value != 0 {
			return true
		}
	}
	return false
}

// Rlimits lists the rlimits of l in the schema's order, unset ones too,
// so that every backend and view names them alike.
func (l Limits) Rlimits() []Rlimit {
	return []Rlimit{{"nofile", l.NoFile}, {"nproc", l.NProc}, {"fsize", l.FSize}, {"cpu", l.CPU}, {"as", l.AS}}
}

// NeedsNamespaces reports whether enforcing p requires a mount or network
// namespace: Landlock alone cannot carve read-only or hidden holes in a
// writable or readable tree, nor give a private loopback.
func (p *Profile) NeedsNamespaces() bool {
	return p.NeedsMountNS() || p.NeedsNetNS() || p.IsolatesPIDs()
}

// NeedsMountNS reports whether p's filesystem needs a mount namespace of
// its own: read-only and hidden holes, or a private /tmp.
func (p *Profile) NeedsMountNS() bool {
	return !p.Unrestricted && (len(p.Protect) > 0 || len(p.Hide) > 0 || len(p.PrivateTmp) > 0)
}

// NeedsNetNS reports whether p's network needs a namespace of its own:
// isolated (loopback only), proxy (the proxy's namespace), and off, where it keeps the command from the
// host's abstract unix sockets, which are neither files nor TCP.
func (p *Profile) NeedsNetNS() bool {
	return p.Network == NetworkIsolated || p.Network == NetworkProxy || p.Network == NetworkOff && !p.Unrestricted
}

// IsolatesPIDs reports whether p gives the command a PID namespace of its
// own: every restricted profile that does not opt out.
func (p *Profile) IsolatesPIDs() bool {
	return !p.Unrestricted && !p.SharePIDs
}

// KeptRoots returns the paths below p's private tmp directories that stay
// the host's: the Write and Read paths there other than the tmp
// directories themselves, the workspace and the sockets p lets the
// command reach. Nothing else of the host's /tmp is there for it: not its
// working directory, not a program, not gatedexec's own files.
func (p *Profile) KeptRoots() []string {
	var out []string
	for _, c := range slices.Concat(p.Write, p.Read, []string{p.Workspace}, p.Sockets) {
		if c != "" && !slices.Contains(p.PrivateTmp, c) && Under(c, p.PrivateTmp) {
			out = append(out, c)
		}
	}
	return out
}

// HiddenByPrivateTmp reports whether path lies in one of p's private tmp
// directories and below none of its KeptRoots: the command cannot reach
// it at all, so it needs no protect or hide mount.
func (p *Profile) HiddenByPrivateTmp(path string) bool {
	return Under(path, p.PrivateTmp) && !Under(path, p.KeptRoots())
}

// ViewDiffers reports whether a command run under p may see path
// otherwise than the host shows it: in a private tmp directory outside
// the kept roots, under a hidden path, under a protected path (which the
// run may make as an empty placeholder), or in /proc or /dev, which the
// sandbox mounts anew.
func (p *Profile) ViewDiffers(path string) bool {
	return !p.Unrestricted && (p.HiddenByPrivateTmp(path) || Under(path, p.Hide) || Under(path, p.Protect) ||
		Under(path, []string{"/proc", "/dev"}))
}

// MakeMissingDirs makes those of p's MakeDirs that do not exist yet, as
// the tool would on first use, so that the profile's grant covers them. A
// directory that cannot be made stays missing; the tool then fails as it
// would without the sandbox.
func (p *Profile) MakeMissingDirs() {
	for _, d := range p.MakeDirs {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			os.MkdirAll(d, 0o755)
		}
	}
}
