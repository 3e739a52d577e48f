package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/gatedexec/gatedexec/internal/cachefile"
)

// The git scan of a workspace keeps, between runs, what it read of each
// directory (dirListing) in a cache entry of its own per workspace, so
// that the scan before the next run reads only the directories changed
// since: on a workspace of 22 000 entries the scan before a run read
// all of them every time. The entry lies among gatedexec's own files,
// which no command may write (Profile.ScanCache), and a listing from it
// is used only under walkRepos's rule, against the time the walk that
// made it started.

// scanCacheMagic starts every entry; a change of the format changes it.
const scanCacheMagic = "gatedexec-gitscan-2\n"

// scanCacheKey is what an entry of root is written under (cachefile.Header):
// an entry moved or copied to another workspace's name is not read.
func scanCacheKey(root string) [cachefile.KeySize]byte {
	return sha256.Sum256([]byte("gatedexec git scan\x00" + root))
}

// maxScanCacheEntry bounds an entry: GitScanLimit entries with long names.
const maxScanCacheEntry = 64 << 20

// scanCacheName is the entry of the workspace root in a scan cache.
func scanCacheName(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:16])
}

// loadListings returns the listings a run's scan kept for root in dir,
// and the time the walk that read them started; nothing when there is
// no entry that can be trusted (cachefile.Read) or it does not decode.
func loadListings(dir, root string) (map[string]dirListing, time.Time) {
	if dir == "" {
		return nil, time.Time{}
	}
	b, ok := cachefile.Read(dir, scanCacheName(root), maxScanCacheEntry)
	if !ok {
		return nil, time.Time{}
	}
	listed, since, err := decodeListings(b, root)
	if err != nil {
		return nil, time.Time{}
	}
	return listed, since
}

// saveListings keeps listed, read by walks that started no earlier than
// since, as root's entry in dir. Best effort, as any cache.
func saveListings(dir, root string, listed map[string]dirListing, since time.Time) {
	if dir == "" || len(listed) == 0 {
		return
	}
	cachefile.Write(dir, scanCacheName(root), encodeListings(listed, root, since), maxScanCacheEntry)
}

// encodeListings writes the magic, root, since and every listing: its
// path, inode, change time, entry count, marks and subdirectories.
func encodeListings(listed map[string]dirListing, root string, since time.Time) []byte {
	b := cachefile.Header(scanCacheMagic, scanCacheKey(root))
	b = binary.AppendVarint(b, since.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(listed)))
	for path, l := range listed {
		b = cachefile.AppendString(b, path)
		b = binary.AppendUvarint(b, l.ino)
		b = binary.AppendVarint(b, l.ctime.UnixNano())
		b = binary.AppendUvarint(b, uint64(l.entries))
		b = append(b, l.flags())
		b = binary.AppendUvarint(b, uint64(len(l.subdirs)))
		for _, s := range l.subdirs {
			b = cachefile.AppendString(b, s)
		}
	}
	return cachefile.Seal(b)
}

var errScanCache = errors.New("scan cache: damaged entry")

// decodeListings reads what encodeListings wrote for root.
func decodeListings(b []byte, root string) (map[string]dirListing, time.Time, error) {
	body, err := cachefile.Open(scanCacheMagic, scanCacheKey(root), b)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: %w", errScanCache, err)
	}
	d := cachefile.NewDecoder(string(body), errScanCache)
	since := time.Unix(0, d.Varint())
	n := d.Count(1)
	if n > GitScanLimit {
		return nil, time.Time{}, errScanCache
	}
	listed := make(map[string]dirListing, n)
	for range n {
		path := d.Str()
		l := dirListing{ino: d.Uvarint(), ctime: time.Unix(0, d.Varint())}
		entries := d.Uvarint()
		l.entries = int(min(entries, GitScanLimit)) // refused below when more: no sum of them overflows
		l.setFlags(d.Byte())
		k := d.Count(1)
		if k > GitScanLimit || entries > GitScanLimit {
			return nil, time.Time{}, errScanCache
		}
		for range k {
			l.subdirs = append(l.subdirs, d.Str())
		}
		listed[path] = l
	}
	if err := d.End(); err != nil {
		return nil, time.Time{}, err
	}
	return listed, since, nil
}

// flags packs the listing's .git entry and git directory marks.
func (l dirListing) flags() byte {
	var f byte
	for i, on := range []bool{l.dotgit, l.marks.head, l.marks.objects, l.marks.refs, l.marks.commondir} {
		if on {
			f |= 1 << i
		}
	}
	return f
}

func (l *dirListing) setFlags(f byte) {
	l.dotgit = f&1 != 0
	l.marks = gitMarks{head: f&2 != 0, objects: f&4 != 0, refs: f&8 != 0, commondir: f&16 != 0}
}
