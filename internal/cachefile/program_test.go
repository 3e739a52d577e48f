//go:build unix

package cachefile

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteProgram makes an entry only its owner may read and execute, which
// OpenProgram opens; OpenProgram refuses an entry of another size, one
// that is not executable, and whatever Read refuses.
func TestProgramEntries(t *testing.T) {
	for _, tt := range []struct {
		name  string
		spoil func(t *testing.T, dir, entry string)
		size  int64
		ok    bool
	}{
		{"written", func(*testing.T, string, string) {}, 5, true},
		{"another size", func(*testing.T, string, string) {}, 4, false},
		{"cut short", func(t *testing.T, _, entry string) { must(t, os.Truncate(entry, 3)) }, 5, false},
		{"not executable", func(t *testing.T, _, entry string) { must(t, os.Chmod(entry, 0o400)) }, 5, false},
		{"group writable", func(t *testing.T, _, entry string) { must(t, os.Chmod(entry, 0o520)) }, 5, false},
		{"world writable directory", func(t *testing.T, dir, _ string) { must(t, os.Chmod(dir, 0o707)) }, 5, false},
		{"missing", func(t *testing.T, _, entry string) { must(t, os.Remove(entry)) }, 5, false},
		{"a symlink", func(t *testing.T, dir, entry string) {
			other := filepath.Join(filepath.Dir(dir), "other")
			must(t, os.WriteFile(other, []byte("hello"), 0o500))
			must(t, os.Remove(entry))
			must(t, os.Symlink(other, entry))
		}, 5, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			entry := filepath.Join(dir, "prog")
			WriteProgram(dir, "prog", []byte("hello"))
			st, err := os.Stat(entry)
			if err != nil || st.Mode().Perm() != 0o500 {
				t.Fatalf("entry: %v, %v; want mode 0500", st, err)
			}
			tt.spoil(t, dir, entry)
			f, ok := OpenProgram(dir, "prog", tt.size)
			if ok != tt.ok {
				t.Fatalf("OpenProgram ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			defer f.Close()
			b := make([]byte, 8)
			if n, _ := f.Read(b); string(b[:n]) != "hello" {
				t.Errorf("read %q from the entry", b[:n])
			}
		})
	}
}

// An entry another user owns is not opened: as root, the entry is handed
// to nobody.
func TestProgramForeignOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file away")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	WriteProgram(dir, "prog", []byte("hello"))
	must(t, os.Chown(filepath.Join(dir, "prog"), 65534, 65534))
	if f, ok := OpenProgram(dir, "prog", 5); ok {
		f.Close()
		t.Error("an entry nobody owns was opened")
	}
}
