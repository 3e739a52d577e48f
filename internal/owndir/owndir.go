// Package owndir checks that a directory holding approvals, trust
// records, cache entries or kept namespaces can only have been written by
// the user gatedexec runs as.
package owndir

import (
	"fmt"
	"os"
	"syscall"
)

// Check returns an error unless dir is a directory owned by the effective
// user and writable by nobody else: anyone else able to write there could
// plant a record that approves or trusts (root pointed at a user's
// XDG_STATE_HOME must trust nothing the user left there).
func Check(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return checkInfo(dir, fi)
}

// checkInfo is Check for dir, whose FileInfo is fi.
func checkInfo(dir string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ok || int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is not a directory owned and writable only by you", dir)
	}
	return nil
}
