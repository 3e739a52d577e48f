//go:build unix

package execpolicy

import (
	"io/fs"
	"syscall"
)

// fileIdentity hashes the device, inode and, where known, change time of
// fi into k: a file replaced or rewritten in place gets a new change
// time, which its owner cannot set back.
func fileIdentity(k *keyHasher, fi fs.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	k.uint(uint64(st.Dev))
	k.uint(st.Ino)
	k.uint(uint64(changeTime(st)))
}
