package snapshot

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/gatedexec/gatedexec/internal/filestamp"
)

// A Hasher hashes files without handing their contents over: where the
// caller only needs to know whether a file is the one it saw before (a
// cache key), that saves reading it into memory of its own.
type Hasher interface {
	// Sum returns the SHA-256 of what ReadFile(name, limit) would
	// return, and its length, or ReadFile's error.
	Sum(name string, limit int64) (sum [sha256.Size]byte, size int64, err error)
}

// Sum hashes name where the page cache holds it, through a read-only
// mapping: a read would first copy it into fresh memory of the process's
// own, a fault for every 4 KB of it (the 60 KB of a thousand rules were
// 15), where the mapping faults a page-cache range at a time. A file
// that stat calls empty (one of /proc's) or that cannot be mapped is read
// instead; so is one cut short while it is hashed (a mapping's page past
// the file's new end faults, which is caught here, not a crash).
func (Disk) Sum(name string, limit int64) (sum [sha256.Size]byte, size int64, err error) {
	f, st, err := openRegular(name, limit)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	return sumOpen(f, st, name, limit)
}

// SumStamped is Sum, with the stamp of the file it hashed (filestamp.Of)
// as of now, a time read before the call: the zero Stamp when it cannot
// vouch for the bytes hashed.
func (Disk) SumStamped(name string, limit int64, now time.Time) (sum [sha256.Size]byte, size int64, stamp filestamp.Stamp, err error) {
	f, st, err := openRegular(name, limit)
	if err != nil {
		return sum, 0, stamp, err
	}
	defer f.Close()
	stamp = filestamp.Of(f, st, now)
	sum, size, err = sumOpen(f, st, name, limit)
	return sum, size, stamp, err
}

// sumOpen hashes f, which openRegular opened as name and st describes.
func sumOpen(f *os.File, st fs.FileInfo, name string, limit int64) (sum [sha256.Size]byte, size int64, err error) {
	if st.Size() > 0 && int64(int(st.Size())) == st.Size() {
		if sum, ok := sumMapped(int(f.Fd()), int(st.Size())); ok {
			return sum, st.Size(), nil
		}
	}
	data, err := readOpen(f, st, name, limit)
	if err != nil {
		return sum, 0, err
	}
	return sha256.Sum256(data), int64(len(data)), nil
}

// sumMapped hashes the first size bytes of the file fd through a
// mapping, or reports false when it cannot be mapped or the file shrank
// under the hash.
func sumMapped(fd, size int) (sum [sha256.Size]byte, ok bool) {
	b, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return sum, false
	}
	defer syscall.Munmap(b)
	return sumFaulting(b)
}

// sumFaulting hashes b, which a truncation of its file can make fault
// (SIGBUS), returning false then instead of crashing.
func sumFaulting(b []byte) (sum [sha256.Size]byte, ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			var re interface{ Addr() uintptr }
			if e, isErr := r.(error); !isErr || !errors.As(e, &re) {
				panic(r) // not a fault of the mapping
			}
			ok = false
		}
	}()
	return sha256.Sum256(b), true
}

// Sum hashes a file of the tree from its snapshot, and anything outside
// it from the disk.
func (t *Tree) Sum(name string, limit int64) (sum [sha256.Size]byte, size int64, err error) {
	data, in, err := t.file(name, limit)
	if !in {
		return Disk{}.Sum(name, limit)
	}
	if err != nil {
		return sum, 0, err
	}
	return sha256.Sum256(data), int64(len(data)), nil
}
