package execpolicy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatedexec/gatedexec/internal/buildid"
)

// cacheFormat names the cache encoding and key layout. Change it whenever
// either changes, so that no entry of an older layout is ever read.
const cacheFormat = "gatedexec compiled rules cache v2"

// keyHasher writes length-prefixed fields into a SHA-256, so that no two
// different field lists hash the same input.
type keyHasher struct {
	h   [8]byte
	sum interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
}

func newKeyHasher(purpose string) *keyHasher {
	k := &keyHasher{sum: sha256.New()}
	k.bytes([]byte(cacheFormat))
	k.bytes([]byte(purpose))
	return k
}

func (k *keyHasher) uint(v uint64) {
	binary.BigEndian.PutUint64(k.h[:], v)
	k.sum.Write(k.h[:])
}

func (k *keyHasher) bytes(b []byte) {
	k.uint(uint64(len(b)))
	k.sum.Write(b)
}

func (k *keyHasher) string(s string) { k.bytes([]byte(s)) }

func (k *keyHasher) done() (out [cacheKeySize]byte) {
	copy(out[:], k.sum.Sum(nil))
	return out
}

// limits hashes what, besides the files, decides what a load yields: the
// home directory that "~/" expands to and the limits that could make a
// load fail.
func (l Loader) limits(k *keyHasher) {
	k.string(l.HomeDir)
	k.uint(uint64(l.maxFileSize()))
	k.uint(l.maxSteps())
	k.uint(uint64(l.maxEntries()))
	if l.Restricted {
		k.string("restricted")
	}
}

// cacheSlot names the entry file of loading files: it depends on the
// build, the limits and the file names, so that editing a rules file
// replaces its entry instead of adding one, while two builds run in turn
// on the same rules (an installed gatedexec and one being developed) each
// keep theirs instead of compiling them again on every run; a past
// build's entries are trimmed when unused (cachefile).
func (l Loader) cacheSlot(files []string) string {
	s := newKeyHasher("slot")
	s.string(l.CacheBuild)
	l.limits(s)
	s.uint(uint64(len(files)))
	for _, name := range files {
		// A relative name means a different file in another directory.
		abs, err := filepath.Abs(name)
		if err != nil {
			abs = name
		}
		s.string(abs)
	}
	sum := s.done()
	return hex.EncodeToString(sum[:])
}

// cacheKey is the key of loading files whose contents have the SHA-256s
// sums, recorded inside the entry: it covers everything the result
// depends on (the build of the loader, the limits, and every file's name
// and full content), so that an entry for anything else is never used.
// The names are the ones given: only the slot needs telling a relative
// name in one directory from the same in another, since the key has the
// content.
func (l Loader) cacheKey(files []string, sums [][sha256.Size]byte) [cacheKeySize]byte {
	k := newKeyHasher("key")
	k.string(l.CacheBuild)
	l.limits(k)
	k.uint(uint64(len(files)))
	for i, name := range files {
		k.string(name)
		k.bytes(sums[i][:])
	}
	return k.done()
}

// BuildIdentity returns a string that differs between builds of this
// program, for Loader.CacheBuild, or "" when it cannot tell (and then
// there is no cache). Two development builds can share a version string
// but behave differently, so it covers the executable too: its Go build
// ID, which the toolchain derives from the executable's content and which
// is read from memory (buildid.Running); without one, the executable
// file's size, modification time and, where the platform has them,
// device, inode and change time, which any rebuild or replacement
// changes, read from the file that is running rather than from its path
// (runningExecutable), which a newer build may have taken over since this
// one started. (The module build information would say less at a cost of
// a fifth of a millisecond per run.)
func BuildIdentity(version string) string {
	k := newKeyHasher("build")
	k.string(version)
	if id := buildid.Running(); id != "" {
		k.string("go build id")
		k.string(id)
	} else {
		exe, st, err := runningExecutable()
		if err != nil {
			return ""
		}
		k.string(exe)
		k.uint(uint64(st.Size()))
		k.uint(uint64(st.ModTime().UnixNano()))
		fileIdentity(k, st)
	}
	sum := k.done()
	return hex.EncodeToString(sum[:])
}

// executableByPath returns the path of the running executable and the
// file info of what is at that path now.
func executableByPath() (string, fs.FileInfo, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	st, err := os.Stat(exe)
	return exe, st, err
}
