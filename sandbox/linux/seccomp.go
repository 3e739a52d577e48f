//go:build linux

package linux

import (
	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// SyscallRule is one entry of the seccomp table: calls to Syscall whose
// arguments match every condition fail with Errno instead of running.
type SyscallRule struct {
	Syscall string
	Errno   unix.Errno
	// Conds are ANDed; none means "always".
	Conds []ArgCond
}

// ArgCond compares argument Arg of a call by Op.
type ArgCond struct {
	Arg   uint
	Op    CondOp
	Mask  uint64
	Value uint64
}

// CondOp is how an ArgCond compares; the zero CondOp is no comparison,
// and buildBPF refuses it rather than guess one.
type CondOp int

const (
	// NotEqual holds when arg != Value (Mask unused).
	NotEqual CondOp = iota + 1
	// MaskedEqual holds when (arg & Mask) == Value.
	MaskedEqual
	// MaskedNotEqual holds when (arg & Mask) != Value: with Mask
	// 0xffffffff, an int argument compared as the kernel reads it.
	MaskedNotEqual
)

// alwaysDenied are the calls no profile needs that widen the kernel attack
// surface or reach outside the sandbox.
var alwaysDenied = []string{
	"ptrace", "process_vm_readv", "process_vm_writev",
	// pidfd_getfd copies a descriptor out of another process, by the same
	// ptrace check as process_vm_readv: without Landlock's ptrace scope
	// (a best-effort run) a peer's files would be open to the command.
	"pidfd_getfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"bpf", "perf_event_open",
	"keyctl", "add_key", "request_key",
	"userfaultfd",
	"kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "open_tree_attr",
	"fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
	"unshare", "setns",
	// A command run as root keeps root's capabilities. These reopen a
	// file on a mount of the caller's choosing, past protect and hide
	// (open_by_handle_at), hand over files others open on the host's
	// mounts (fanotify), or change the whole host.
	"open_by_handle_at", "fanotify_init",
	"reboot", "sethostname", "setdomainname", "settimeofday", "clock_settime",
	"swapon", "swapoff", "acct", "iopl", "ioperm", "vhangup", "syslog",
	// Another process's memory, by pidfd: no command needs it.
	"process_madvise", "process_mrelease",
}

// namespaceCloneFlags are the clone(2) flags that create namespaces.
// CLONE_NEWTIME (0x80) is left out: in clone(2) those bits are the exit
// signal, and unshare/clone3 are denied anyway.
var namespaceCloneFlags = []uint64{
	unix.CLONE_NEWNS, unix.CLONE_NEWUTS, unix.CLONE_NEWIPC, unix.CLONE_NEWUSER,
	unix.CLONE_NEWPID, unix.CLONE_NEWNET, unix.CLONE_NEWCGROUP,
}

// namespacedFamilies are the socket domains a command whose network is a
// namespace of its own may use: those the namespace contains (TCP, UDP,
// the routing netlink of that namespace) and unix sockets, which the mount
// namespace and Landlock judge. Every other domain is refused rather than
// listed: AF_VSOCK, for one, is not per network namespace, so a socket of
// it reaches the hypervisor and the other VMs of the host past the proxy,
// and a listing would miss the next such family.
var namespacedFamilies = []uint64{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}

// namespacedFamiliesOnly is the rule refusing socket(2) every domain but
// namespacedFamilies, compared as the int the kernel reads.
func namespacedFamiliesOnly() SyscallRule {
	r := SyscallRule{Syscall: "socket", Errno: unix.EPERM}
	for _, f := range namespacedFamilies {
		r.Conds = append(r.Conds, ArgCond{Arg: 0, Op: MaskedNotEqual, Mask: 0xffffffff, Value: f})
	}
	return r
}

// ioprioWhoProcess is IOPRIO_WHO_PROCESS of ioprio_set(2).
const ioprioWhoProcess = 1

// seccompRules returns the seccomp table for p, the data buildBPF compiles.
func seccompRules(p *sandbox.Profile) []SyscallRule {
	var rules []SyscallRule
	for _, name := range alwaysDenied {
		rules = append(rules, SyscallRule{Syscall: name, Errno: unix.EPERM})
	}
	for _, f := range namespaceCloneFlags {
		rules = append(rules, SyscallRule{Syscall: "clone", Errno: unix.EPERM,
			Conds: []ArgCond{{Arg: 0, Op: MaskedEqual, Mask: f, Value: f}}})
	}
	// prlimit sets the limits of any process of the same user, and
	// Landlock scopes signals, not limits: a CPU limit kills like a
	// signal. Only the command's own (pid 0, as setrlimit passes) may be
	// set; reading others' stays allowed.
	rules = append(rules, SyscallRule{Syscall: "prlimit64", Errno: unix.EPERM,
		Conds: []ArgCond{{Arg: 0, Op: NotEqual, Value: 0}, {Arg: 2, Op: NotEqual, Value: 0}}})
	// The same for priorities: only the command itself, not another
	// process (who != 0) nor a whole group or user (which != PROCESS,
	// whose "0" means the caller's own user, outside included). nice(1)
	// and ionice(1) starting a command pass 0.
	for _, c := range []struct {
		call    string
		process uint64
	}{{"setpriority", unix.PRIO_PROCESS}, {"ioprio_set", ioprioWhoProcess}} {
		rules = append(rules,
			SyscallRule{Syscall: c.call, Errno: unix.EPERM, Conds: []ArgCond{{Arg: 0, Op: NotEqual, Value: c.process}}},
			SyscallRule{Syscall: c.call, Errno: unix.EPERM, Conds: []ArgCond{{Arg: 1, Op: NotEqual, Value: 0}}})
	}
	// Scheduling policy, parameters and CPUs: a PID namespace shows the
	// command no process but its own; without one, only the command
	// itself (pid 0) may be changed. Threads pass their own id, so this
	// is not the default: it would refuse pthread_setaffinity_np.
	if p.SharePIDs {
		for _, call := range []string{"sched_setscheduler", "sched_setparam", "sched_setattr", "sched_setaffinity"} {
			rules = append(rules, SyscallRule{Syscall: call, Errno: unix.EPERM, Conds: []ArgCond{{Arg: 0, Op: NotEqual, Value: 0}}})
		}
	}
	// clone3 passes its flags in memory seccomp cannot read; ENOSYS makes
	// libc fall back to clone(2), which is checked above.
	rules = append(rules, SyscallRule{Syscall: "clone3", Errno: unix.ENOSYS})
	// The kernel reads the ioctl request as 32 bits, so compare only those.
	// stdin may be the caller's terminal: no typing into it, and for root
	// no hanging it up (SIGHUP to the caller's session) or redirecting
	// the host's console to it.
	for _, req := range []uint64{unix.TIOCSTI, unix.TIOCLINUX, unix.TIOCVHANGUP, unix.TIOCCONS} {
		rules = append(rules, SyscallRule{Syscall: "ioctl", Errno: unix.EPERM,
			Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: req}}})
	}
	// TIOCSCTTY with an argument of 1 lets root take a terminal from the
	// session it controls; 0, what a program starting its own pty passes,
	// stays allowed.
	rules = append(rules, SyscallRule{Syscall: "ioctl", Errno: unix.EPERM,
		Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.TIOCSCTTY}, {Arg: 2, Op: NotEqual, Value: 0}}})
	if p.Network == sandbox.NetworkProxy {
		// Only TCP and the stub's UDP leave through the proxy; the
		// namespace keeps everything else in, and this says so at once.
		// Raw and packet sockets need CAP_NET_RAW, gone anyway; ping
		// sockets do not.
		rules = append(rules,
			SyscallRule{Syscall: "socket", Errno: unix.EPERM, Conds: []ArgCond{{Arg: 0, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.AF_PACKET}}},
			SyscallRule{Syscall: "socket", Errno: unix.EPERM, Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xf, Value: unix.SOCK_RAW}}},
			SyscallRule{Syscall: "socket", Errno: unix.EPERM, Conds: []ArgCond{{Arg: 2, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.IPPROTO_ICMP}}},
			SyscallRule{Syscall: "socket", Errno: unix.EPERM, Conds: []ArgCond{{Arg: 2, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.IPPROTO_ICMPV6}}})
	}
	if p.Network == sandbox.NetworkProxy || p.Network == sandbox.NetworkIsolated {
		rules = append(rules, namespacedFamiliesOnly())
	}
	for _, call := range []string{"socket", "socketpair"} {
		switch {
		case p.Network == sandbox.NetworkOff && p.UnixSockets:
			// Any domain but AF_UNIX; a domain with high bits set is
			// "not AF_UNIX" too, so the comparison fails closed.
			rules = append(rules, SyscallRule{Syscall: call, Errno: unix.EPERM,
				Conds: []ArgCond{{Arg: 0, Op: NotEqual, Value: unix.AF_UNIX}}})
		case p.Network == sandbox.NetworkOff:
			rules = append(rules, SyscallRule{Syscall: call, Errno: unix.EPERM})
		case !p.UnixSockets && !p.Unrestricted:
			// The kernel reads the domain as an int.
			rules = append(rules, SyscallRule{Syscall: call, Errno: unix.EPERM,
				Conds: []ArgCond{{Arg: 0, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.AF_UNIX}}})
		}
	}
	return rules
}
