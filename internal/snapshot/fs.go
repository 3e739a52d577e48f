// Package snapshot reads configuration files either from the disk or from
// a snapshot of a directory tree, taken once and hashed as it is read.
//
// A trusted workspace layer is loaded from its snapshot: reading its files
// again after hashing them for the trust check would let a writer swap a
// file in between, so that what was checked is not what is used.
package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// FS reads files by host path, as the os package does.
type FS interface {
	// Stat returns the file info of name, following symlinks.
	Stat(name string) (fs.FileInfo, error)
	// ReadDir returns the entries of directory name, sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// ReadFile returns the contents of the regular file name. It refuses
	// anything else, and a file of more than limit bytes with an error
	// wrapping ErrTooLarge.
	ReadFile(name string, limit int64) ([]byte, error)
}

// ErrTooLarge is wrapped by the error of a ReadFile over its limit.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped by the error of a ReadFile of something other
// than a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Disk is the FS of the host.
type Disk struct{}

// Stat is os.Stat.
func (Disk) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// ReadDir is os.ReadDir.
func (Disk) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// ReadFile reads name without reading more than limit+1 bytes. It opens
// name without blocking and checks the open file, not the path: a FIFO
// put in place of a file would otherwise block the open forever, and a
// device could be endless. It reads through the descriptor, not an
// *os.File: os offers a descriptor opened non-blocking to Go's poller,
// and the first offer sets the poller up (epoll, an eventfd and a
// refused registration) in a process that otherwise never needs it.
func (Disk) ReadFile(name string, limit int64) ([]byte, error) {
	fd, size, err := openRegular(name, limit)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	// Sized from the stat, the buffer is usually read into once; the file
	// may have grown since (a file in /proc says 0), so the limit is what
	// bounds the read.
	buf := make([]byte, 0, int(size)+bytes.MinRead)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, bytes.MinRead)
		}
		room := min(int64(cap(buf)-len(buf)), limit+1-int64(len(buf)))
		n, err := read(fd, buf[len(buf):len(buf)+int(room)])
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		if buf = buf[:len(buf)+n]; int64(len(buf)) > limit {
			return nil, tooLarge(name, limit)
		}
	}
}

// openRegular opens name for ReadFile and returns it with its size,
// unless it is not a regular file or is larger than limit.
func openRegular(name string, limit int64) (fd int, size int64, err error) {
	fd, err = openNonBlocking(name)
	if err != nil {
		return -1, 0, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st syscall.Stat_t
	switch statErr := ignoringEINTR(func() error { return syscall.Fstat(fd, &st) }); {
	case statErr != nil:
		err = &fs.PathError{Op: "stat", Path: name, Err: statErr}
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		err = &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	case st.Size > limit:
		err = tooLarge(name, limit)
	default:
		return fd, st.Size, nil
	}
	syscall.Close(fd)
	return -1, 0, err
}

// read reads from fd into b, retrying on EINTR; 0 means the end.
func read(fd int, b []byte) (n int, err error) {
	err = ignoringEINTR(func() (err error) {
		n, err = syscall.Read(fd, b)
		return err
	})
	return max(n, 0), err
}

// openNonBlocking opens name read-only, close-on-exec and non-blocking.
func openNonBlocking(name string) (fd int, err error) {
	err = ignoringEINTR(func() (err error) {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		return err
	})
	return fd, err
}

// ignoringEINTR calls f until it fails with something other than EINTR,
// as the os package does for its own system calls.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}

func tooLarge(name string, limit int64) error {
	return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
}
