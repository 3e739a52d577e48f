package gate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFingerprint: the fingerprint of a file and a directory of files
// stays as it is while nothing changes, and changes with any change a
// loader would see: a file rewritten, added, removed or renamed in the
// directory, the file appearing or going, the directory unreadable.
func TestFingerprint(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, file, dir string)
	}{
		{"file rewritten, same size", func(t *testing.T, file, _ string) {
			must(t, os.WriteFile(file, []byte("B"), 0o600))
			must(t, os.Chtimes(file, time.Time{}, time.Now().Add(time.Hour)))
		}},
		{"file removed", func(t *testing.T, file, _ string) { must(t, os.Remove(file)) }},
		{"file mode", func(t *testing.T, file, _ string) { must(t, os.Chmod(file, 0o644)) }},
		{"entry added", func(t *testing.T, _, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "c.rules"), nil, 0o600))
		}},
		{"entry removed", func(t *testing.T, _, dir string) { must(t, os.Remove(filepath.Join(dir, "a.rules"))) }},
		{"entry renamed", func(t *testing.T, _, dir string) {
			must(t, os.Rename(filepath.Join(dir, "a.rules"), filepath.Join(dir, "z.rules")))
		}},
		{"entry replaced, only its inode differs", func(t *testing.T, _, dir string) {
			tmp := filepath.Join(t.TempDir(), "new")
			must(t, os.WriteFile(tmp, []byte("a"), 0o600))
			old, err := os.Stat(filepath.Join(dir, "a.rules"))
			must(t, err)
			dirInfo, err := os.Stat(dir)
			must(t, err)
			must(t, os.Chtimes(tmp, time.Time{}, old.ModTime()))
			must(t, os.Rename(tmp, filepath.Join(dir, "a.rules")))
			must(t, os.Chtimes(dir, time.Time{}, dirInfo.ModTime()))
		}},
		{"directory unreadable (gone, as root)", func(t *testing.T, _, dir string) {
			if os.Geteuid() == 0 {
				// root reads it anyway; a directory gone is what it sees
				must(t, os.RemoveAll(dir))
				return
			}
			must(t, os.Chmod(dir, 0o300))
			t.Cleanup(func() { os.Chmod(dir, 0o700) })
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			file, dir := filepath.Join(root, "config.toml"), filepath.Join(root, "rules")
			must(t, os.WriteFile(file, []byte("A"), 0o600))
			must(t, os.Mkdir(dir, 0o700))
			for _, n := range []string{"a.rules", "b.rules"} {
				must(t, os.WriteFile(filepath.Join(dir, n), []byte("a"), 0o600))
			}
			paths := []string{file, dir, filepath.Join(root, "missing")}
			before := fingerprint(paths)
			if again := fingerprint(paths); again != before {
				t.Fatalf("unchanged files, two fingerprints: %s, %s", before, again)
			}
			c.change(t, file, dir)
			if after := fingerprint(paths); after == before {
				t.Errorf("fingerprint unchanged")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
