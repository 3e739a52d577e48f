//go:build unix

package config

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// rootOnly fails unless path, which is not followed if it is a symlink,
// is owned by root and no one else may write it; an ancestor directory may
// instead be sticky (as /tmp is), where no one else can rename or remove
// what root put in it.
func rootOnly(path string, ancestor bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return rootOnlyInfo(path, st, ancestor)
}

// rootOnlyInfo is rootOnly of the file path whose Lstat is st. A
// symlink's own mode means nothing: only its owner is checked here, and
// what it points at by whoever follows it.
func rootOnlyInfo(path string, st fs.FileInfo, ancestor bool) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot read its owner", path)
	}
	if sys.Uid != 0 {
		return fmt.Errorf("%s is owned by uid %d, not root", path, sys.Uid)
	}
	if st.Mode()&os.ModeSymlink == 0 && st.Mode()&0o022 != 0 && !(ancestor && st.Mode()&os.ModeSticky != 0) {
		return fmt.Errorf("%s is writable by its group or others (mode %v)", path, st.Mode().Perm())
	}
	return nil
}

// writable reports whether this process may write path.
func writable(path string) bool {
	return unix.Access(path, unix.W_OK) == nil
}
