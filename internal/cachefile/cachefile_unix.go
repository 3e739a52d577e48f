//go:build unix

package cachefile

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/gatedexec/gatedexec/internal/plainfile"
	"golang.org/x/sys/unix"
)

// Supported reports whether this platform can check who owns a cache
// entry; without that check there is no cache.
const Supported = true

// ownedPrivately reports whether fi belongs to the effective user and no
// one else can write it.
func ownedPrivately(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid() && fi.Mode().Perm()&0o022 == 0
}

// openNoFollow opens name for reading without following a final symlink.
func openNoFollow(name string) (*os.File, error) {
	return plainfile.Open(name, unix.O_NOFOLLOW)
}

// touch sets the modification (and access) time of the entry open as f
// to now: through the descriptor, so that it is the file read, whatever
// its name meanwhile leads to.
func touch(f *os.File, now time.Time) {
	tv := unix.NsecToTimeval(now.UnixNano())
	_ = unix.Futimes(int(f.Fd()), []unix.Timeval{tv, tv})
}
