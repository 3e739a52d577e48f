package execpolicy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatedexec/gatedexec/internal/snapshot"
)

// readCounter is the disk, counting the files read whole.
type readCounter struct {
	snapshot.Disk
	reads int
}

func (c *readCounter) ReadFile(name string, limit int64) ([]byte, error) {
	c.reads++
	return c.Disk.ReadFile(name, limit)
}

// TestCachedLoadHashesOnly: a load the cache answers hashes its files
// where they lie (snapshot.Hasher) and reads none of them; a changed
// file misses, and is read and compiled.
func TestCachedLoadHashesOnly(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.rules")
	if err := os.WriteFile(file, []byte(`prefix_rule(["git", "status"], "allow")`), 0o600); err != nil {
		t.Fatal(err)
	}
	fsys := &readCounter{}
	l := Loader{HomeDir: "/h", CacheDir: filepath.Join(dir, "cache"), CacheBuild: "b", Files: fsys}
	first, err := l.LoadFiles(file)
	if err != nil {
		t.Fatal(err)
	}
	again, err := l.LoadFiles(file)
	if err != nil {
		t.Fatal(err)
	}
	if fsys.reads != 1 {
		t.Errorf("%d reads for a load and its cached load, want 1", fsys.reads)
	}
	assertSamePolicy(t, again, first)
	if err := os.WriteFile(file, []byte(`prefix_rule(["git", "status"], "forbidden")`), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := l.LoadFiles(file)
	if err != nil {
		t.Fatal(err)
	}
	if fsys.reads != 2 {
		t.Errorf("%d reads after the file changed, want 2", fsys.reads)
	}
	if got := changed.Evaluate([]string{"git", "status"}, EvalOptions{}).Decision; got != Forbidden {
		t.Errorf("the changed file decides %v, want forbidden", got)
	}
}
