package execpolicy

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatedexec/gatedexec/internal/snapshot"
)

// readCounter is the disk, counting the files read whole and hashed
// where they lie.
type readCounter struct {
	snapshot.Disk
	reads, sums int
}

func (c *readCounter) ReadFile(name string, limit int64) ([]byte, error) {
	c.reads++
	return c.Disk.ReadFile(name, limit)
}

func (c *readCounter) Sum(name string, limit int64) ([sha256.Size]byte, int64, error) {
	c.sums++
	return c.Disk.Sum(name, limit)
}

// TestCachedLoadHashesOnly: a load the cache answers hashes its files
// where they lie (snapshot.Hasher) and reads none of them; a changed
// file misses, and is read and compiled; a loader without a cache reads
// and hashes each file once, and hashes none where it lies.
func TestCachedLoadHashesOnly(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.rules")
	write := func(src string) {
		if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fsys := &readCounter{}
	l := Loader{HomeDir: "/h", CacheDir: filepath.Join(dir, "cache"), CacheBuild: "b", Files: fsys}
	load := func(wantReads int) *Policy {
		t.Helper()
		p, err := l.LoadFiles(file)
		if err != nil {
			t.Fatal(err)
		}
		if fsys.reads != wantReads {
			t.Errorf("%d reads, want %d", fsys.reads, wantReads)
		}
		return p
	}
	write(`prefix_rule(["git", "status"], "allow")`)
	first := load(1)
	assertSamePolicy(t, load(1), first)
	write(`prefix_rule(["git", "status"], "forbidden")`)
	if got := load(2).Evaluate([]string{"git", "status"}, EvalOptions{}).Decision; got != Forbidden {
		t.Errorf("the changed file decides %v, want forbidden", got)
	}
	l.CacheBuild = ""
	*fsys = readCounter{}
	load(1)
	if fsys.sums != 0 {
		t.Errorf("a loader without a cache hashed %d files where they lie", fsys.sums)
	}
}
