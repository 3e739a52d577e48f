//go:build unix

package execpolicy

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileIdentity returns the device, inode and, where known, change time of
// fi: a file replaced or rewritten in place gets a new change time, which
// its owner cannot set back.
func fileIdentity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprint(st.Dev, st.Ino, changeTime(st))
}
