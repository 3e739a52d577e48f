package execpolicy

import (
	"crypto/sha256"
	"path/filepath"

	"github.com/gatedexec/gatedexec/internal/cachefile"
)

// maxCacheEntry bounds the size of a cache entry read or written. An entry
// never needs to be larger than a few times the rules it came from; a
// larger one is not worth keeping and is not read.
const maxCacheEntry = 64 << 20

// cacheEntry is the compiled-policy cache entry for one LoadFiles call.
//
// Parsing and running Starlark is most of what loading costs, and a
// command-line tool pays it on every run, so LoadFiles keeps what it
// compiled under Loader.CacheDir. An entry is used only when its key, which
// covers the loader's build and every file's name and content, matches;
// when anything about it is wrong (damaged, truncated, written for other
// files, owned by someone else, writable by others) the files are simply
// loaded again. Failures are never cached, so a broken file reports its
// position on every run.
type cacheEntry struct {
	dir   string
	path  string
	key   [cacheKeySize]byte
	files []string
}

// cacheEntryFor returns the cache entry of loading files, whose contents
// have the SHA-256s sums, or nil when the loader has no cache. Without a
// build identity there is none: an entry from another build of the
// loader could hold another meaning.
func (l Loader) cacheEntryFor(files []string, sums [][sha256.Size]byte) *cacheEntry {
	if !l.caches() || len(files) == 0 {
		return nil
	}
	return &cacheEntry{dir: l.CacheDir, path: filepath.Join(l.CacheDir, l.cacheSlot(files)), key: l.cacheKey(files, sums), files: files}
}

// caches reports whether l has a compiled-rules cache.
func (l Loader) caches() bool {
	return l.CacheDir != "" && l.CacheBuild != "" && cachefile.Supported
}

// load returns the cached policy, or nil when there is no usable entry.
func (c *cacheEntry) load() *Policy {
	if c == nil {
		return nil
	}
	entry, ok := cachefile.Read(c.dir, filepath.Base(c.path), maxCacheEntry)
	if !ok {
		return nil
	}
	p, err := decodePolicy(c.key, entry, c.files)
	if err != nil {
		return nil
	}
	return p
}

// store writes p as the entry, atomically: readers see the old entry or
// the new one, never part of one. Any failure leaves the cache as it was;
// the cache only ever saves time, so it never fails a load.
func (c *cacheEntry) store(p *Policy) {
	if c == nil {
		return
	}
	cachefile.Write(c.dir, filepath.Base(c.path), encodePolicy(c.key, p, c.files), maxCacheEntry)
}
