//go:build linux

package linux

import "golang.org/x/sys/unix"

// The native architecture of the seccomp program (seccomp_bpf.go).
const (
	nativeArchName  = "amd64"
	nativeAuditArch = unix.AUDIT_ARCH_X86_64
	// x32SyscallBit marks x32 calls, which arrive with the native
	// arch; 0 where there is no such ABI.
	x32SyscallBit = 0x40000000
)

// addArchSyscalls adds to m the calls of the table that only this
// architecture has.
func addArchSyscalls(m map[string]uint32) {
	m["iopl"] = unix.SYS_IOPL
	m["ioperm"] = unix.SYS_IOPERM
}

// absentSyscalls are calls the table names that this architecture does
// not have: there is nothing to deny.
var absentSyscalls []string
