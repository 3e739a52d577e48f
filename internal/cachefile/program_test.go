//go:build unix

package cachefile

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteProgram makes an entry only its owner may read and execute, which
// OpenProgram opens; OpenProgram refuses an entry of another size, one
// that is not executable, and whatever Read refuses (untrusted).
func TestProgramEntries(t *testing.T) {
	type programCase struct {
		name  string
		root  bool
		spoil func(t *testing.T, dir, entry string)
		size  int64
		ok    bool
	}
	cases := []programCase{
		{"written", false, func(*testing.T, string, string) {}, 5, true},
		{"another size", false, func(*testing.T, string, string) {}, 4, false},
		{"cut short", false, func(t *testing.T, _, entry string) { must(t, os.Truncate(entry, 3)) }, 5, false},
		{"not executable", false, func(t *testing.T, _, entry string) { must(t, os.Chmod(entry, 0o400)) }, 5, false},
	}
	for _, u := range untrusted {
		cases = append(cases, programCase{u.name, u.root, u.spoil, 5, false})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			needRoot(t, tt.root)
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
