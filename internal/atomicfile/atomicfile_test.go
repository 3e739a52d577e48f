package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	for _, sync := range []bool{false, true} {
		for _, content := range []string{"first\n", "second, longer\n", ""} {
			if err := Write(path, []byte(content), sync); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != content {
				t.Fatalf("read %q, %v; want %q", got, err, content)
			}
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file (no temporaries)", len(entries))
	}
}

func TestWriteFailureLeavesOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, []byte("old"), false); err != nil {
		t.Fatal(err)
	}
	// A directory where the file is cannot be replaced by a rename.
	blocked := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(blocked, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(blocked, []byte("new"), false); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), false); err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("old file = %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries, want 2 (no temporaries left)", len(entries))
	}
}

func TestOpenChecks(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old")
	if err := os.WriteFile(existing, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(dir, "new"), true},
		{existing, true},
		{dir, false},
		{"/dev/null", false},
		{filepath.Join(dir, "missing", "f"), false},
	} {
		tg, err := Open(tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("Open(%s) = %v, want ok %v", tc.path, err, tc.ok)
		}
		tg.Close()
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "x" {
		t.Errorf("the existing file changed: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the existing file", len(entries))
	}
}

func TestTargetWritesIntoTheDirectoryItOpened(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tg, err := Open(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	// What a command does meanwhile: move the directory aside, put a
	// link to somewhere else at its name, and a link at the file's.
	elsewhere := filepath.Join(base, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	if err := os.Rename(dir, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(elsewhere, dir)
	os.Symlink(filepath.Join(elsewhere, "victim"), filepath.Join(base, "moved", "r.json"))
	if err := tg.Write([]byte("result\n"), false); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(base, "moved", "r.json")); err != nil || string(b) != "result\n" {
		t.Errorf("result in the opened directory = %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("the write followed a link: %v", ents)
	}
	if fi, err := os.Lstat(filepath.Join(base, "moved", "r.json")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link at the name was followed, not replaced: %v", fi.Mode())
	}
}

// WritePerm gives the file the bits asked for, whatever the umask.
func TestWritePerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	for _, perm := range []os.FileMode{0o644, 0o640, 0o664, 0o600, 0o444} {
		if err := WritePerm(path, []byte("x"), false, perm); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("mode %v, %v; want %v", fi.Mode(), err, perm)
		}
	}
}
