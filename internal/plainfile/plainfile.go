// Package plainfile opens files that never block, regular files and
// directories, for reading without Go's poller. os.Open offers every
// file it opens on Linux to the poller, which a regular file or a
// directory refuses: four more system calls (fcntl, epoll_ctl, fcntl
// again) on each open, on paths a sandboxed start opens dozens of.
package plainfile

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Open opens path read-only and close-on-exec, with flags added
// (unix.O_NOFOLLOW, unix.O_DIRECTORY, unix.O_NONBLOCK). Errors are
// *fs.PathError, as os.Open's.
//
// With unix.O_NONBLOCK the open itself does not wait (a FIFO with no
// writer, a device), and the file is then put back in blocking mode:
// os offers a non-blocking descriptor to the poller, and the first offer
// sets the poller up in a process that may never need it. The caller
// checks what it opened (a regular file) before reading it.
func Open(path string, flags int) (*os.File, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|flags, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		if flags&unix.O_NONBLOCK != 0 {
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0); err != nil {
				unix.Close(fd)
				return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
			}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
