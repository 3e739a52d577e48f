package cachefile

import (
	"sort"
	"strings"
	"time"
)

// How a cache directory is kept small. An entry's modification time says
// when it was last written or read (Read moves it on, at most once per
// touchAfter); after a Write, at most once per trimEvery in a directory,
// trim removes the entries unused for maxUnused, then, past maxEntries,
// the least recently used. The bounds are generous: a missing entry only
// costs its next run what the cache would have saved.
const (
	touchAfter = time.Hour
	trimEvery  = time.Hour
	maxUnused  = 7 * 24 * time.Hour
	maxEntries = 256
	// staleTemp is the age of a write's temporary file (atomicfile) at
	// which the process that made it has died mid-write: writes take
	// milliseconds.
	staleTemp = time.Hour
	// trimMarker is the file whose modification time is the last trim;
	// no entry is named with a leading dot.
	trimMarker = ".trimmed"
)

// usedFile is a regular file of a cache directory and its modification
// time.
type usedFile struct {
	name string
	used time.Time
}

// expired returns the names trim removes, at now, among files: temporary
// files left by a dead writer, entries unused for maxUnused, and, beyond
// maxEntries, the least recently used of those left, but none used within
// touchAfter: Read moves an entry's time on only once that old, so a burst
// of new entries (a test suite's workspaces) would otherwise push out one
// read every second. A time in the future (a clock set back) counts as
// just used.
func expired(files []usedFile, now time.Time) []string {
	var gone []string
	var kept []usedFile
	for _, f := range files {
		switch {
		case f.name == trimMarker:
		case isTemp(f.name):
			if now.Sub(f.used) > staleTemp {
				gone = append(gone, f.name)
			}
		case now.Sub(f.used) > maxUnused:
			gone = append(gone, f.name)
		default:
			kept = append(kept, f)
		}
	}
	if len(kept) > maxEntries {
		// sort.Slice, not slices.SortFunc: a generic sort of this type
		// would add 20 KB of code to every start's binary for a call
		// made once an hour.
		sort.Slice(kept, func(i, j int) bool {
			a, b := kept[i], kept[j]
			if c := a.used.Compare(b.used); c != 0 {
				return c < 0
			}
			return a.name < b.name
		})
		for _, f := range kept[:len(kept)-maxEntries] {
			if now.Sub(f.used) > touchAfter {
				gone = append(gone, f.name)
			}
		}
	}
	return gone
}

// isTemp reports whether name is a temporary file of atomicfile's.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
