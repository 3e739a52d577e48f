// Package cachefile reads and writes the entries of gatedexec's on-disk
// caches (compiled rules, parsed profiles, git-scan listings): their
// frame (Header, Seal, Open), their bodies' strings and numbers
// (AppendString, Decoder), and their files. A cache entry says what the
// rules or a profile are, so one that someone else could have written is
// never read: the directory and the entry must belong to the effective
// user and be writable by no one else, the entry must be a regular file
// reached without following a link, and it must not exceed the size the
// caller bounds it to. Writing is atomic (a reader sees the old entry or
// the new one) and best effort: a cache only ever saves time, so no
// failure here fails anything. A cache directory is kept small (trim):
// entries not used for a week go, and past maxEntries the least recently
// used, so that a machine running agents in a fresh workspace per job
// does not gather an entry per workspace for ever.
package cachefile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gatedexec/gatedexec/internal/atomicfile"
)

// Read returns the content of the entry name in dir, or false when there
// is no entry that can be trusted (see the package comment) or it is
// larger than max bytes.
func Read(dir, name string, max int64) ([]byte, bool) {
	f, st, ok := openEntry(dir, name)
	if !ok {
		return nil, false
	}
	defer f.Close()
	if st.Size() > max {
		return nil, false
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, false
	}
	used(f, st)
	return b, true
}

// openEntry opens the entry name in dir when it can be trusted (see the
// package comment), with what its descriptor's fstat says.
func openEntry(dir, name string) (*os.File, fs.FileInfo, bool) {
	if !Supported || !dirIsPrivate(dir) {
		return nil, nil, false
	}
	f, err := openNoFollow(filepath.Join(dir, name))
	if err != nil {
		return nil, nil, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || !ownedPrivately(st) {
		f.Close()
		return nil, nil, false
	}
	return f, st, true
}

// used notes that the entry open as f, whose fstat is st, was used.
func used(f *os.File, st fs.FileInfo) {
	if now := time.Now(); now.Sub(st.ModTime()) > touchAfter {
		// The modification time says when an entry was last used, for
		// trim; an hour's precision is enough for that and spares a
		// system call on nearly every read.
		touch(f, now)
	}
}

// Write replaces the entry name in dir with data, creating dir (mode
// 0700) when it is missing. It writes nothing when dir is not private to
// the effective user or data is larger than max bytes.
func Write(dir, name string, data []byte, max int64) {
	if int64(len(data)) > max {
		return
	}
	write(dir, name, data, 0o600)
}

// write is Write giving the entry the permission bits perm.
func write(dir, name string, data []byte, perm os.FileMode) {
	if !Supported {
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil || !dirIsPrivate(dir) {
		return
	}
	// A failed write leaves no entry, and a cache is no reason to fail.
	_ = atomicfile.WritePerm(filepath.Join(dir, name), data, false, perm)
	trim(dir, time.Now())
}

// dirIsPrivate reports whether dir is a real directory only the effective
// user can write to.
func dirIsPrivate(dir string) bool {
	st, err := os.Lstat(dir)
	return err == nil && st.IsDir() && ownedPrivately(st)
}
