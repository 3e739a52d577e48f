package execpolicy

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"time"

	"github.com/gatedexec/gatedexec/internal/cachefile"
	"github.com/gatedexec/gatedexec/internal/filestamp"
	"github.com/gatedexec/gatedexec/internal/snapshot"
)

// An entry's key covers the content of every rules file, so finding it
// means hashing them: for 1000 rules, 60 KB hashed on every start, a
// fifth of what a cached `check` cost. An entry therefore also records
// the files' stamps (package filestamp) with the hashes they vouch for;
// when every file still has its stamp, its recorded hash is its hash,
// and the key is computed from those. A stamp is recorded only for a
// file on the disk, on a local file system, that had settled before it
// was hashed, and vouches only for a load from the disk: a load from a
// snapshot (a trusted layer) must use the bytes its trust was checked
// on, which the disk may no longer hold. Any other file is hashed on
// every load, as before. The recorded hashes are inside the sealed entry and must
// give the entry's own key, so a stamp can only ever stand for content
// that was hashed.

// stampedFile is the stamp of a rules file with the SHA-256 of the bytes
// it vouches for.
type stampedFile struct {
	stamp filestamp.Stamp
	sum   [sha256.Size]byte
}

// minStampBytes is the least a stamped file takes in an entry: five
// one-byte numbers and the hash.
const minStampBytes = 5 + sha256.Size

// stamper hashes files on the disk and stamps them (snapshot.Disk).
type stamper interface {
	SumStamped(name string, limit int64, now time.Time) (sum [sha256.Size]byte, size int64, stamp filestamp.Stamp, err error)
}

// appendStamps appends stamps, which are none or one per file.
func appendStamps(buf []byte, stamps []stampedFile) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(stamps)))
	for _, s := range stamps {
		buf = binary.AppendUvarint(buf, s.stamp.Dev)
		buf = binary.AppendUvarint(buf, s.stamp.Ino)
		buf = binary.AppendUvarint(buf, s.stamp.Size)
		buf = binary.AppendVarint(buf, s.stamp.Mtime)
		buf = binary.AppendVarint(buf, s.stamp.Ctime)
		buf = append(buf, s.sum[:]...)
	}
	return buf
}

// stamps reads what appendStamps wrote for nfiles files.
func (d decoder) stamps(nfiles int) []stampedFile {
	n := d.Count(minStampBytes)
	if n == 0 {
		return nil
	}
	if n != nfiles {
		d.Fail("%d stamps for %d files", n, nfiles)
		return nil
	}
	stamps := make([]stampedFile, n)
	for i := range stamps {
		s := &stamps[i]
		s.stamp = filestamp.Stamp{Dev: d.Uvarint(), Ino: d.Uvarint(), Size: d.Uvarint(), Mtime: d.Varint(), Ctime: d.Varint()}
		copy(s.sum[:], d.Bytes(sha256.Size))
		if s.stamp.IsZero() && d.Err() == nil {
			d.Fail("an empty stamp")
		}
	}
	return stamps
}

// openedEntry is a rules cache entry whose seal was checked, read up to
// its policy.
type openedEntry struct {
	key    [cacheKeySize]byte
	stamps []stampedFile
	policy decoder // at the start of the policy
	body   []byte  // the policy's bytes
}

// openStamped reads the entry slot of l's cache for nfiles files, or
// returns nil when there is none that opens.
func (l Loader) openStamped(slot string, nfiles int) *openedEntry {
	entry, ok := cachefile.Read(l.CacheDir, slot, maxCacheEntry)
	if !ok {
		return nil
	}
	key, body, err := cachefile.OpenKeyed(cacheMagic, entry)
	if err != nil {
		return nil
	}
	d := newDecoder(body)
	stamps := d.stamps(nfiles)
	if d.Err() != nil {
		return nil
	}
	return &openedEntry{key: key, stamps: stamps, policy: d, body: body[d.Off():]}
}

// policyFor returns e's policy when e was written under key, else nil.
func (e *openedEntry) policyFor(key [cacheKeySize]byte, files []string) *Policy {
	if e == nil || e.key != key {
		return nil
	}
	p, err := e.policy.policy(files)
	if err != nil {
		return nil
	}
	return p
}

// vouched returns e's policy when every one of files still has its stamp
// in e, within the loader's limits, with the hashes the stamps recorded
// put into sums; else nil.
func (l Loader) vouched(e *openedEntry, files []string, sums [][sha256.Size]byte) *Policy {
	if e == nil || len(e.stamps) != len(files) {
		return nil
	}
	var total uint64
	for i, s := range e.stamps {
		if total += s.stamp.Size; s.stamp.Size > uint64(l.maxFileSize()) || l.Restricted && total > MaxRestrictedBytes {
			return nil
		}
		if !filestamp.Holds(files[i], s.stamp) {
			return nil
		}
		sums[i] = s.sum
	}
	return e.policyFor(l.cacheKey(files, sums), files)
}

// restamp writes e again with stamps, when they all vouch and differ
// from e's, so that the next load need not hash the files.
func (l Loader) restamp(slot string, e *openedEntry, stamps []stampedFile) {
	if slices.EqualFunc(stamps, e.stamps, func(a, b stampedFile) bool { return a == b }) ||
		slices.ContainsFunc(stamps, func(s stampedFile) bool { return s.stamp.IsZero() }) {
		return
	}
	buf := appendStamps(cachefile.Header(cacheMagic, e.key), stamps)
	cachefile.Write(l.CacheDir, slot, cachefile.Seal(append(buf, e.body...)), maxCacheEntry)
}

// loadCachedBySum returns the cached policy of files when the cache has
// one and the files can be hashed where they lie (snapshot.Hasher) rather
// than read, or need not be hashed at all (vouched): a cached load needs
// no rules text, and reading 60 KB into fresh memory cost a cached check
// more than hashing it. Nil otherwise, and for any error hashing them:
// the load then reads them (and reports it), hashing what it read. sums
// receives their hashes; looked reports that sums hold every file's and
// the cache had no policy for them, so that a load that reads the same
// bytes need not read the entry again.
func (l Loader) loadCachedBySum(files []string, sums [][sha256.Size]byte) (p *Policy, looked bool) {
	h, ok := l.files().(snapshot.Hasher)
	if !ok || !l.caches() {
		return nil, false
	}
	slot := l.cacheSlot(files)
	e := l.openStamped(slot, len(files))
	// Stamps say what the disk holds: a load from a snapshot uses what the
	// snapshot holds, which the disk may no longer.
	st, stamps := h.(stamper)
	var stamped []stampedFile
	if stamps {
		if p := l.vouched(e, files, sums); p != nil {
			p.sources = sourcesOf(files, sums)
			return p, false
		}
		stamped = make([]stampedFile, len(files))
	}
	now := l.now()
	var total int64
	for i, name := range files {
		var sum [sha256.Size]byte
		var size int64
		var err error
		if stamps {
			sum, size, stamped[i].stamp, err = st.SumStamped(name, l.maxFileSize(), now)
			stamped[i].sum = sum
		} else {
			sum, size, err = h.Sum(name, l.maxFileSize())
		}
		if total += size; err != nil || l.Restricted && total > MaxRestrictedBytes {
			return nil, false
		}
		sums[i] = sum
	}
	p = e.policyFor(l.cacheKey(files, sums), files)
	if p == nil {
		return nil, true
	}
	if stamps {
		l.restamp(slot, e, stamped)
	}
	p.sources = sourcesOf(files, sums)
	return p, false
}

// now is the loader's clock: the time stamps are taken as of.
func (l Loader) now() time.Time {
	if l.clock != nil {
		return l.clock()
	}
	return time.Now()
}
