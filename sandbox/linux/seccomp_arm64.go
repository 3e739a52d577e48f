//go:build linux

package linux

import "golang.org/x/sys/unix"

// The native architecture of the seccomp program (seccomp_bpf.go).
const (
	nativeArchName  = "arm64"
	nativeAuditArch = unix.AUDIT_ARCH_AARCH64
	// x32SyscallBit marks x32 calls, which arrive with the native
	// arch; 0 where there is no such ABI.
	x32SyscallBit = 0
)

// addArchSyscalls adds to m the calls of the table that only this
// architecture has: none.
func addArchSyscalls(map[string]uint32) {}

// absentSyscalls are calls the table names that this architecture does
// not have: there is nothing to deny.
var absentSyscalls = []string{"iopl", "ioperm"}
