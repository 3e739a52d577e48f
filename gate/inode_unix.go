//go:build unix

package gate

import (
	"os"
	"syscall"
)

// inode identifies the file behind st, so that a file replaced by a
// rename with the same size and time still counts as changed.
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
