package execpolicy

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/internal/cachefile"
	"github.com/gatedexec/gatedexec/internal/filestamp"
	"github.com/gatedexec/gatedexec/internal/snapshot"
)

// countingDisk is the disk, counting the files hashed through it.
type countingDisk struct {
	snapshot.Disk
	hashed *int
}

func (c countingDisk) Sum(name string, limit int64) ([sha256.Size]byte, int64, error) {
	*c.hashed++
	return c.Disk.Sum(name, limit)
}

func (c countingDisk) SumStamped(name string, limit int64, now time.Time) ([sha256.Size]byte, int64, filestamp.Stamp, error) {
	*c.hashed++
	return c.Disk.SumStamped(name, limit, now)
}

// stampsOf returns the stamps recorded in l's one entry.
func stampsOf(t *testing.T, l Loader, nfiles int) []stampedFile {
	t.Helper()
	entry, err := os.ReadFile(entryPath(t, l))
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := cachefile.OpenKeyed(cacheMagic, entry)
	if err != nil {
		t.Fatal(err)
	}
	d := newDecoder(body)
	stamps := d.stamps(nfiles)
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	return stamps
}

// TestCacheStamps: once the rules files have settled, a load stamps the
// entry and the next loads hash nothing; any change to a file makes the
// load hash it again and see the change.
func TestCacheStamps(t *testing.T) {
	paths, _ := cacheFixture(t)
	files, err := ExpandRulePaths(paths...)
	if err != nil {
		t.Fatal(err)
	}
	var hashed int
	l := cacheLoader(t)
	l.Files = countingDisk{hashed: &hashed}
	l.clock = func() time.Time { return time.Now().Add(time.Hour) }
	load := func(want *Policy, wantHashed int) {
		t.Helper()
		hashed = 0
		got, err := l.LoadFiles(paths...)
		if err != nil {
			t.Fatal(err)
		}
		assertSamePolicy(t, got, want)
		if hashed != wantHashed {
			t.Errorf("%d files hashed, want %d", hashed, wantHashed)
		}
	}
	fresh, err := Loader{HomeDir: l.HomeDir}.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	load(fresh, len(files)) // no entry: hashed, then compiled and stored
	if s := stampsOf(t, l, len(files)); s != nil {
		t.Fatalf("a compiled entry has stamps %+v", s)
	}
	load(fresh, len(files)) // hashed, found, stamped
	stamps := stampsOf(t, l, len(files))
	if len(stamps) != len(files) {
		t.Fatalf("entry has %d stamps for %d files", len(stamps), len(files))
	}
	for i, s := range stamps {
		src, _ := os.ReadFile(files[i])
		if s.sum != sha256.Sum256(src) || s.stamp.Size != uint64(len(src)) {
			t.Errorf("%s: stamp %+v does not describe the file", files[i], s)
		}
	}
	load(fresh, 0) // vouched for
	load(fresh, 0)

	// A change a coarse clock's tick later, of one byte with the
	// length and times kept, is hashed and seen.
	time.Sleep(20 * time.Millisecond)
	st, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(paths[0])
	src[strings.Index(string(src), `"rm"`)+1] = 'x'
	if err := os.WriteFile(paths[0], src, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(paths[0], st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	changed, err := Loader{HomeDir: l.HomeDir}.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Digest() == fresh.Digest() {
		t.Fatal("the change left the digest as it was")
	}
	load(changed, len(files))
	load(changed, len(files))
	load(changed, 0)
}

// TestCacheNoStampsUnsettled: files changed within filestamp.Settle of
// their load are hashed on every load, and their entry is not stamped.
func TestCacheNoStampsUnsettled(t *testing.T) {
	paths, _ := cacheFixture(t)
	var hashed int
	l := cacheLoader(t)
	l.Files = countingDisk{hashed: &hashed}
	for range 3 {
		hashed = 0
		if _, err := l.LoadFiles(paths...); err != nil {
			t.Fatal(err)
		}
		if hashed != 2 {
			t.Fatalf("%d files hashed, want 2", hashed)
		}
	}
	if s := stampsOf(t, l, 2); s != nil {
		t.Fatalf("entry stamped %+v", s)
	}
}

// TestCacheStampsNotForSnapshots: a load from a snapshot (a trusted
// layer) uses what the snapshot holds, even where the disk has since
// changed and the entry's stamps vouch for the disk's new bytes.
func TestCacheStampsNotForSnapshots(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a.rules")
	writeRules(t, dir, map[string]string{"a.rules": `prefix_rule(["ls"], "allow")`})
	tree, err := snapshot.Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	writeRules(t, dir, map[string]string{"a.rules": `prefix_rule(["ls"], "forbidden")`})
	later := func() time.Time { return time.Now().Add(time.Hour) }
	disk := cacheLoader(t)
	disk.clock = later
	for range 2 { // compiled, then stamped
		if _, err := disk.LoadFiles(name); err != nil {
			t.Fatal(err)
		}
	}
	if s := stampsOf(t, disk, 1); len(s) != 1 {
		t.Fatalf("entry not stamped: %+v", s)
	}
	snap := disk
	snap.Files = tree
	p, err := snap.LoadFiles(name)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Evaluate([]string{"ls"}, EvalOptions{}).Decision; d != Allow {
		t.Fatalf("ls: %v under the snapshot's rules, want allow", d)
	}
}
