// Package plainfile opens, reads and writes files that never block
// (regular files, directories, and the files of /proc and the cgroup
// file systems) without Go's poller. os.Open offers every file it opens
// on Linux to the poller, which a regular file or a directory refuses:
// four more system calls (fcntl, epoll_ctl, fcntl again) on each open,
// on paths a sandboxed start opens dozens of; a /proc or cgroup file it
// takes, and removes again at the close, for reads that never wait.
package plainfile

import (
	"errors"
	"io"
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
	fd, err := open(path, unix.O_RDONLY|flags)
	if err != nil {
		return nil, err
	}
	if flags&unix.O_NONBLOCK != 0 {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0); err != nil {
			unix.Close(fd)
			return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
		}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ErrNotRegular is wrapped by OpenRegular's error for a file that is not
// a regular one.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path as Open does with unix.O_NONBLOCK, and refuses,
// with an error wrapping ErrNotRegular, anything but a regular file: a
// FIFO or a device someone left where a file is read neither holds the
// open nor the reads after it. It returns the open file's stat.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := Open(path, unix.O_NONBLOCK)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// ReadFile returns the contents of the file at path, as os.ReadFile does,
// for a file that never blocks. Errors are *fs.PathError.
func ReadFile(path string) ([]byte, error) {
	fd, err := open(path, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	// Sized for the small files of /proc and the cgroup file systems,
	// whose size stat does not tell.
	b := make([]byte, 0, 512)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// WriteFile writes data to the existing file at path in one write, for a
// file of /proc or a cgroup file system, where each write is one value:
// it neither creates nor truncates. A short write is an error. Errors are
// *fs.PathError.
func WriteFile(path string, data []byte) error {
	fd, err := open(path, unix.O_WRONLY)
	if err != nil {
		return err
	}
	n, err := unix.Write(fd, data)
	for errors.Is(err, unix.EINTR) {
		n, err = unix.Write(fd, data)
	}
	if err == nil && n < len(data) {
		err = io.ErrShortWrite
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// open opens path close-on-exec with flags, retrying on EINTR.
func open(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_CLOEXEC|flags, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
