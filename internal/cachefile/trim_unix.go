//go:build unix

package cachefile

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/owndir"
)

// trim removes from the cache directory dir what expired selects, unless
// dir was trimmed less than trimEvery before now. It works through a
// descriptor of dir opened without following a link, and only on regular
// files the effective user owns, so that a directory swapped for a link
// meanwhile leads it nowhere else. Like the rest of the cache it is best
// effort: whatever fails is left for the next trim.
func trim(dir string, now time.Time) {
	d, err := owndir.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	fd := int(d.Fd())
	var st unix.Stat_t
	if unix.Fstatat(fd, trimMarker, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		if since := now.Sub(time.Unix(st.Mtim.Unix())); since >= 0 && since < trimEvery {
			return
		}
	}
	// The marker moves first, so that the writers that follow skip the
	// trim this one is doing; without it every Write would trim.
	if !mark(fd, now) {
		return
	}
	names, err := d.Readdirnames(-1)
	if err != nil {
		return
	}
	files := make([]usedFile, 0, len(names))
	for _, name := range names {
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil ||
			st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() {
			continue
		}
		files = append(files, usedFile{name, time.Unix(st.Mtim.Unix())})
	}
	for _, name := range expired(files, now) {
		_ = unix.Unlinkat(fd, name, 0)
	}
}

// mark sets the trim marker of the directory dirfd to now, making it if
// missing.
func mark(dirfd int, now time.Time) bool {
	fd, err := unix.Openat(dirfd, trimMarker, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	unix.Close(fd)
	t := unix.NsecToTimespec(now.UnixNano())
	return unix.UtimesNanoAt(dirfd, trimMarker, []unix.Timespec{t, t}, unix.AT_SYMLINK_NOFOLLOW) == nil
}
