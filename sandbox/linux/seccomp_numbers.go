//go:build linux

package linux

import (
	"sync"

	"golang.org/x/sys/unix"
)

// syscallNumbers are the native numbers of the calls the seccomp table
// names, those every architecture has and this one's own
// (addArchSyscalls); a name missing from both this and absentSyscalls is
// refused.
// Built on first use: only a sandboxed run compiles a seccomp program,
// and a map literal at package level is built by every gatedexec start.
var syscallNumbers = sync.OnceValue(func() map[string]uint32 {
	m := map[string]uint32{
		"ptrace":             unix.SYS_PTRACE,
		"process_vm_readv":   unix.SYS_PROCESS_VM_READV,
		"process_vm_writev":  unix.SYS_PROCESS_VM_WRITEV,
		"pidfd_getfd":        unix.SYS_PIDFD_GETFD,
		"io_uring_setup":     unix.SYS_IO_URING_SETUP,
		"io_uring_enter":     unix.SYS_IO_URING_ENTER,
		"io_uring_register":  unix.SYS_IO_URING_REGISTER,
		"bpf":                unix.SYS_BPF,
		"perf_event_open":    unix.SYS_PERF_EVENT_OPEN,
		"keyctl":             unix.SYS_KEYCTL,
		"add_key":            unix.SYS_ADD_KEY,
		"request_key":        unix.SYS_REQUEST_KEY,
		"userfaultfd":        unix.SYS_USERFAULTFD,
		"kexec_load":         unix.SYS_KEXEC_LOAD,
		"kexec_file_load":    unix.SYS_KEXEC_FILE_LOAD,
		"init_module":        unix.SYS_INIT_MODULE,
		"finit_module":       unix.SYS_FINIT_MODULE,
		"delete_module":      unix.SYS_DELETE_MODULE,
		"mount":              unix.SYS_MOUNT,
		"umount2":            unix.SYS_UMOUNT2,
		"pivot_root":         unix.SYS_PIVOT_ROOT,
		"move_mount":         unix.SYS_MOVE_MOUNT,
		"open_tree":          unix.SYS_OPEN_TREE,
		"open_tree_attr":     unix.SYS_OPEN_TREE_ATTR,
		"fsopen":             unix.SYS_FSOPEN,
		"fsmount":            unix.SYS_FSMOUNT,
		"fsconfig":           unix.SYS_FSCONFIG,
		"fspick":             unix.SYS_FSPICK,
		"mount_setattr":      unix.SYS_MOUNT_SETATTR,
		"unshare":            unix.SYS_UNSHARE,
		"setns":              unix.SYS_SETNS,
		"open_by_handle_at":  unix.SYS_OPEN_BY_HANDLE_AT,
		"fanotify_init":      unix.SYS_FANOTIFY_INIT,
		"reboot":             unix.SYS_REBOOT,
		"sethostname":        unix.SYS_SETHOSTNAME,
		"setdomainname":      unix.SYS_SETDOMAINNAME,
		"settimeofday":       unix.SYS_SETTIMEOFDAY,
		"clock_settime":      unix.SYS_CLOCK_SETTIME,
		"swapon":             unix.SYS_SWAPON,
		"swapoff":            unix.SYS_SWAPOFF,
		"acct":               unix.SYS_ACCT,
		"vhangup":            unix.SYS_VHANGUP,
		"syslog":             unix.SYS_SYSLOG,
		"process_madvise":    unix.SYS_PROCESS_MADVISE,
		"process_mrelease":   unix.SYS_PROCESS_MRELEASE,
		"clone":              unix.SYS_CLONE,
		"prlimit64":          unix.SYS_PRLIMIT64,
		"setpriority":        unix.SYS_SETPRIORITY,
		"ioprio_set":         unix.SYS_IOPRIO_SET,
		"sched_setscheduler": unix.SYS_SCHED_SETSCHEDULER,
		"sched_setparam":     unix.SYS_SCHED_SETPARAM,
		"sched_setattr":      unix.SYS_SCHED_SETATTR,
		"sched_setaffinity":  unix.SYS_SCHED_SETAFFINITY,
		"clone3":             unix.SYS_CLONE3,
		"ioctl":              unix.SYS_IOCTL,
		"socket":             unix.SYS_SOCKET,
		"socketpair":         unix.SYS_SOCKETPAIR,
	}
	addArchSyscalls(m)
	return m
})
