//go:build unix

package cachefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// untrusted are the ways an entry comes to be one that no reader may
// trust (openEntry): each spoils the entry written at entry in dir.
var untrusted = []struct {
	name  string
	root  bool // needs root (to give a file away)
	spoil func(t *testing.T, dir, entry string)
}{
	{"missing", false, func(t *testing.T, _, entry string) { must(t, os.Remove(entry)) }},
	{"group writable", false, func(t *testing.T, _, entry string) {
		st, err := os.Stat(entry)
		must(t, err)
		must(t, os.Chmod(entry, st.Mode().Perm()|0o020))
	}},
	{"world writable directory", false, func(t *testing.T, dir, _ string) { must(t, os.Chmod(dir, 0o707)) }},
	{"a directory", false, func(t *testing.T, _, entry string) {
		must(t, os.Remove(entry))
		must(t, os.Mkdir(entry, 0o700))
	}},
	{"a symlink", false, func(t *testing.T, dir, entry string) {
		st, err := os.Stat(entry)
		must(t, err)
		other := filepath.Join(filepath.Dir(dir), "other")
		must(t, os.WriteFile(other, []byte("hello"), st.Mode().Perm()))
		must(t, os.Remove(entry))
		must(t, os.Symlink(other, entry))
	}},
	{"owned by another user", true, func(t *testing.T, _, entry string) { must(t, os.Chown(entry, 65534, 65534)) }},
}

// needRoot stops a case that needs root (root) when this is not root:
// it fails under CI, where every case must run, and skips elsewhere.
func needRoot(t *testing.T, root bool) {
	t.Helper()
	if root && os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("needs root to give a file away")
		}
		t.Skip("needs root to give a file away")
	}
}

// Write makes a private directory and an entry Read returns; Read
// refuses whatever someone else could have written (untrusted), and
// whatever is larger than asked.
func TestReadTrustsOnlyPrivateEntries(t *testing.T) {
	type readCase struct {
		name  string
		root  bool
		spoil func(t *testing.T, dir, entry string)
		max   int64
		ok    bool
	}
	cases := []readCase{
		{"written", false, func(*testing.T, string, string) {}, 64, true},
		{"at the bound", false, func(*testing.T, string, string) {}, 5, true},
		{"over the bound", false, func(*testing.T, string, string) {}, 4, false},
	}
	for _, u := range untrusted {
		cases = append(cases, readCase{u.name, u.root, u.spoil, 64, false})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			needRoot(t, tt.root)
			dir := filepath.Join(t.TempDir(), "cache", "sub")
			Write(dir, "e", []byte("hello"), 64)
			st, err := os.Stat(dir)
			if err != nil || st.Mode().Perm() != 0o700 {
				t.Fatalf("cache directory: %v, %v", st, err)
			}
			tt.spoil(t, dir, filepath.Join(dir, "e"))
			b, ok := Read(dir, "e", tt.max)
			if ok != tt.ok || ok && !bytes.Equal(b, []byte("hello")) {
				t.Fatalf("Read = %q, %v; want ok %v", b, ok, tt.ok)
			}
		})
	}
}

// Write writes nothing larger than its bound, nor into a directory that
// is not private.
func TestWriteRefuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	Write(dir, "big", make([]byte, 10), 9)
	if _, err := os.Stat(filepath.Join(dir, "big")); err == nil {
		t.Error("an entry over the bound was written")
	}
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.Chmod(dir, 0o770))
	Write(dir, "e", []byte("x"), 9)
	if _, err := os.Stat(filepath.Join(dir, "e")); err == nil {
		t.Error("an entry was written into a group-writable directory")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFrame: Open returns what was sealed under the same magic and key,
// and refuses an entry cut short, of another format or key, or changed.
func TestFrame(t *testing.T) {
	key := [KeySize]byte{1, 2, 3}
	entry := Seal(append(Header("m1", key), "body"...))
	if body, err := Open("m1", key, entry); err != nil || string(body) != "body" {
		t.Fatalf("Open = %q, %v", body, err)
	}
	flipped := append([]byte(nil), entry...)
	flipped[len("m1")+KeySize] ^= 1
	for name, c := range map[string]struct {
		magic string
		key   [KeySize]byte
		entry []byte
		want  error
	}{
		"truncated":      {"m1", key, entry[:len(entry)-1], errChecksum},
		"header only":    {"m1", key, entry[:len("m1")+KeySize], errTruncated},
		"other magic":    {"m2", key, entry, errMagic},
		"other key":      {"m1", [KeySize]byte{9}, entry, errKey},
		"a byte flipped": {"m1", key, flipped, errChecksum},
	} {
		if _, err := Open(c.magic, c.key, c.entry); err != c.want {
			t.Errorf("%s: Open = %v, want %v", name, err, c.want)
		}
		// OpenKeyed takes any key and refuses the rest alike.
		want := c.want
		if want == errKey {
			want = nil
		}
		if _, _, err := OpenKeyed(c.magic, c.entry); err != want {
			t.Errorf("%s: OpenKeyed = %v, want %v", name, err, want)
		}
	}
	if got, body, err := OpenKeyed("m1", entry); err != nil || got != key || string(body) != "body" {
		t.Fatalf("OpenKeyed = %x, %q, %v", got, body, err)
	}
}
