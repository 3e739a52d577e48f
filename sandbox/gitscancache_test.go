package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestScanCache: the listings the scan after a run keeps are what the next
// run's scan takes for the directories unchanged since, so that it reads
// only what changed; a repository made between the runs (outside any) is
// one the next run found before it, and one made during it is reported.
func TestScanCache(t *testing.T) {
	requireGit(t)
	ws, cache := t.TempDir(), filepath.Join(t.TempDir(), "scans")
	gitInit(t, ws, "init", "-q")
	for _, d := range []string{"a/1", "a/2", "b/1", "b/2", "c"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(10 * time.Millisecond) // older than the first scan's tick
	first := scanGitRepos(ws, cache, time.Time{})
	if got, _, _ := first.GitTamper(); len(got) != 0 {
		t.Fatalf("first run: GitTamper = %q", got)
	}
	first.Keep()
	if _, err := os.Stat(filepath.Join(cache, scanCacheName(ws))); err != nil {
		t.Fatalf("the first run kept nothing: %v", err)
	}
	// Between the runs: a repository made in b/2.
	gitInit(t, filepath.Join(ws, "b", "2"), "init", "-q", "--bare", "between")
	time.Sleep(10 * time.Millisecond)
	second := scanGitRepos(ws, cache, time.Time{})
	if _, ok := second.repos[filepath.Join(ws, "b", "2", "between")]; !ok {
		t.Errorf("the second scan did not find the repository made between the runs: %v", second.repos)
	}
	if second.reads > 3 {
		t.Errorf("the second scan found %d directories changed, want b/2 and what was made in it", second.reads)
	}
	time.Sleep(10 * time.Millisecond)
	gitInit(t, filepath.Join(ws, "a", "1"), "init", "-q", "--bare", "during")
	want := []string{filepath.Join(ws, "a", "1", "during")}
	if got, _, _ := second.GitTamper(); !slices.Equal(got, want) {
		t.Errorf("second run: GitTamper = %q, want %q", got, want)
	}
}

// TestScanCacheDamaged: an entry that does not decode, or was kept for
// another workspace, is not used: the scan reads everything.
func TestScanCacheDamaged(t *testing.T) {
	ws, cache := t.TempDir(), filepath.Join(t.TempDir(), "scans")
	for _, d := range []string{"a", "b"} {
		os.Mkdir(filepath.Join(ws, d), 0o755)
	}
	time.Sleep(10 * time.Millisecond)
	listed := map[string]dirListing{}
	if _, _, n := walkRepos(ws, false, nil, listed, time.Time{}, func(gitRepo) {}); n != 3 {
		t.Fatalf("a walk without a cache found %d directories new, want 3", n)
	}
	good := encodeListings(listed, ws, coarseNow())
	for name, entry := range map[string][]byte{
		"truncated":       good[:len(good)-1],
		"trailing":        append(slices.Clone(good), 0),
		"other workspace": encodeListings(listed, ws+"x", coarseNow()),
		"other format":    append([]byte("gatedexec-gitscan-0\n"), good[len(scanCacheMagic):]...),
		"a byte flipped":  flipByte(good, len(good)/2),
	} {
		if err := os.MkdirAll(cache, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cache, scanCacheName(ws)), entry, 0o600); err != nil {
			t.Fatal(err)
		}
		if g := scanGitRepos(ws, cache, time.Time{}); g.reads != 3 {
			t.Errorf("%s: the scan took %d of 3 directories from the entry", name, 3-g.reads)
		}
	}
	os.WriteFile(filepath.Join(cache, scanCacheName(ws)), good, 0o600)
	if g := scanGitRepos(ws, cache, time.Time{}); g.reads != 0 {
		t.Errorf("an entry that decodes: the scan read %d directories again, want none", g.reads)
	}
}

// flipByte returns b with its byte i changed.
func flipByte(b []byte, i int) []byte {
	b = slices.Clone(b)
	b[i] ^= 1
	return b
}

// FuzzDecodeListings: an entry decodes or is refused, never panics, and
// what decodes encodes back to the same listings.
func FuzzDecodeListings(f *testing.F) {
	f.Add(encodeListings(map[string]dirListing{"/w": {ino: 2, subdirs: []string{"a"}, entries: 3, dotgit: true}, "/w/a": {ino: 5}}, "/w", time.Unix(1, 2)))
	f.Add([]byte(scanCacheMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		listed, since, err := decodeListings(b, "/w")
		if err != nil {
			return
		}
		again, since2, err := decodeListings(encodeListings(listed, "/w", since), "/w")
		if err != nil || !since.Equal(since2) || len(again) != len(listed) {
			t.Fatalf("re-encoded entry: %v, %d listings, want %d", err, len(again), len(listed))
		}
		for p, l := range listed {
			m := again[p]
			if m.ino != l.ino || !m.ctime.Equal(l.ctime) || m.entries != l.entries || m.dotgit != l.dotgit || m.marks != l.marks || !slices.Equal(m.subdirs, l.subdirs) {
				t.Fatalf("%s: %+v, want %+v", p, m, l)
			}
		}
	})
}

// TestWithScanCacheNeedsControl: the scan keeps its listings only in a
// directory the run's command cannot write, one of its control paths.
func TestWithScanCacheNeedsControl(t *testing.T) {
	ws := t.TempDir()
	p := &Profile{Name: "t", Workspace: ws, Write: []string{ws}}
	cache := filepath.Join(t.TempDir(), "cache", "scans")
	if got := WithScanCache(p, cache).ScanCache; got != "" {
		t.Errorf("without the cache among the control paths: ScanCache = %q, want none", got)
	}
	q := WithControl(p, []string{filepath.Dir(cache)})
	if got := WithScanCache(q, cache).ScanCache; got != cache {
		t.Errorf("with its directory a control path: ScanCache = %q, want %q", got, cache)
	}
	if got := WithScanCache(&Profile{Unrestricted: true, Workspace: ws, Write: []string{"/"}}, cache).ScanCache; got != "" {
		t.Errorf("a profile that watches no workspace: ScanCache = %q", got)
	}
}

// TestScanCacheKeepsWhatSparesAReads: the scan after a run rewrites the
// entry only when that spares the next scan a read. A run that made and
// removed an entry in the workspace's root (what a placeholder of the
// mount plan does) leaves the entry as it was; a directory changed
// between runs is kept.
func TestScanCacheKeepsWhatSparesAReads(t *testing.T) {
	ws, cache := t.TempDir(), filepath.Join(t.TempDir(), "scans")
	for _, d := range []string{"a/1", "b"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entry := filepath.Join(cache, scanCacheName(ws))
	read := func() string {
		b, err := os.ReadFile(entry)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// run scans, lets during act as the command, and keeps the listings;
	// it returns how many directories the scan before the run read.
	run := func(during func()) int {
		time.Sleep(10 * time.Millisecond) // what was changed is older than the scan's tick
		g := scanGitRepos(ws, cache, time.Time{})
		before := g.reads
		time.Sleep(10 * time.Millisecond)
		during()
		if got, _, _ := g.GitTamper(); len(got) != 0 {
			t.Fatalf("GitTamper = %q", got)
		}
		g.Keep()
		return before
	}
	placeholder := func() {
		p := filepath.Join(ws, ".gatedexec")
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	run(func() {})
	first := read()
	run(placeholder)
	if read() != first {
		t.Error("a run that only made and removed an entry in the root rewrote the entry")
	}
	// The root changed during the run before: read again, and only it.
	if n := run(placeholder); n != 1 {
		t.Errorf("the scan read %d directories, want the root alone", n)
	}
	if read() != first {
		t.Error("the entry was rewritten again")
	}
	// Between runs, a file made and removed in a: the same entries, a
	// newer change time, which a kept listing spares the next scan.
	f := filepath.Join(ws, "a", "f")
	os.WriteFile(f, nil, 0o644)
	os.Remove(f)
	// The root, changed by the runs before, is read again too; its
	// change is now older than the scan, so both are kept.
	if n := run(func() {}); n != 2 {
		t.Errorf("the scan read %d directories, want a and the root", n)
	}
	second := read()
	if second == first {
		t.Fatal("a directory changed between runs was not kept")
	}
	if n := run(func() {}); n != 0 {
		t.Errorf("after it was kept the scan read %d directories, want none", n)
	}
	// A directory made during a run is read again by the next scan
	// whatever is kept, and kept by the run after, when its listing
	// spares the scans after a read.
	run(func() { os.Mkdir(filepath.Join(ws, "b", "new"), 0o755) })
	if read() != second {
		t.Error("a directory made during the run was kept by it")
	}
	if n := run(func() {}); n != 2 {
		t.Errorf("the scan read %d directories, want b and b/new", n)
	}
	if read() == second {
		t.Error("a directory made during the run before was not kept")
	}
	if n := run(func() {}); n != 0 {
		t.Errorf("after it was kept the scan read %d directories, want none", n)
	}
	// As a sandboxed run does it: the placeholder made once the watch
	// began, before the scan, and removed after the scan after the run.
	// The root's listing holds the placeholder and is older than the
	// scan, but not than the run: not kept, in two runs in a row.
	kept := read()
	for range 2 {
		time.Sleep(10 * time.Millisecond)
		p := filepath.Join(ws, ".gatedexec")
		begun := coarseNow()
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // the scan a tick after the mkdir
		g := scanGitRepos(ws, cache, begun)
		if got, _, _ := g.GitTamper(); len(got) != 0 {
			t.Fatalf("GitTamper = %q", got)
		}
		g.Keep()
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if read() != kept {
			t.Fatal("a run that made a placeholder before its scan rewrote the entry")
		}
	}
	// The root, changed by those runs alone, is read again and kept.
	if n := run(func() {}); n != 1 {
		t.Errorf("the scan read %d directories, want the root alone", n)
	}
	if read() == kept {
		t.Error("the root, changed between runs, was not kept")
	}
}
