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
	"io"
	"io/fs"
	"os"

	"github.com/gatedexec/gatedexec/internal/plainfile"
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
var ErrNotRegular = plainfile.ErrNotRegular

// Disk is the FS of the host.
type Disk struct{}

// Stat is os.Stat.
func (Disk) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// ReadDir is os.ReadDir.
func (Disk) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// ReadFile reads name without reading more than limit+1 bytes. It opens
// name without blocking and checks the open file, not the path: a FIFO
// put in place of a file would otherwise block the open forever, and a
// device could be endless. plainfile opens it, as os would not, without
// setting up Go's poller for it (epoll, an eventfd and a refused
// registration) in a process that otherwise never needs it.
func (Disk) ReadFile(name string, limit int64) ([]byte, error) {
	f, st, err := openRegular(name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, st, name, limit)
}

// readOpen reads f, which openRegular opened as name and st describes,
// from where it is, without reading more than limit+1 bytes.
func readOpen(f *os.File, st fs.FileInfo, name string, limit int64) ([]byte, error) {
	// Sized from the stat, the buffer is usually read into once; the file
	// may have grown since (a file in /proc says 0), so the limit is what
	// bounds the read.
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(buf.Len()) > limit {
		return nil, tooLarge(name, limit)
	}
	return buf.Bytes(), nil
}

// openRegular opens name, refusing anything but a regular file
// (plainfile.OpenRegular) of at most limit bytes (by its stat: a file may
// grow after).
func openRegular(name string, limit int64) (*os.File, fs.FileInfo, error) {
	f, st, err := plainfile.OpenRegular(name)
	if err != nil {
		return nil, nil, err
	}
	if st.Size() > limit {
		f.Close()
		return nil, nil, tooLarge(name, limit)
	}
	return f, st, nil
}

func tooLarge(name string, limit int64) error {
	return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
}
