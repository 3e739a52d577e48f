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

func TestCheckWritable(t *testing.T) {
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
		if err := CheckWritable(tc.path); (err == nil) != tc.ok {
			t.Errorf("CheckWritable(%s) = %v, want ok %v", tc.path, err, tc.ok)
		}
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "x" {
		t.Errorf("the existing file changed: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the existing file", len(entries))
	}
}
