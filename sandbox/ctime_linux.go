package sandbox

import (
	"io/fs"
	"syscall"
	"time"
)

// ctimeOf is the inode change time of fi: set by the kernel on every change
// of the file's content, metadata, links or name, and never set back by
// a process (utimes sets it to now).
func ctimeOf(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}

// devOf is the device of the file system fi lies on.
func devOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}
