//go:build unix

package execpolicy

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// cacheSupported reports whether this platform can check who owns a cache
// entry; without that check the cache is off.
const cacheSupported = true

// ownedPrivately reports whether fi belongs to the effective user and no
// one else can write it: an entry someone else could have written is not
// trusted to say what the rules are.
func ownedPrivately(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid() && fi.Mode().Perm()&0o022 == 0
}

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

// openNoFollow opens name for reading without following a final symlink.
func openNoFollow(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
