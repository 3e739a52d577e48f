package plainfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpen: a file and a directory open and read as with os.Open; a
// missing path, a final link under O_NOFOLLOW and a file under
// O_DIRECTORY fail with a PathError naming the path.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("content"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	f, err := Open(file, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(b) != "content" {
		t.Errorf("read %q, %v", b, err)
	}
	d, err := Open(dir, unix.O_DIRECTORY)
	if err != nil {
		t.Fatal(err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil || len(names) != 2 {
		t.Errorf("directory names %q, %v", names, err)
	}
	for _, tc := range []struct {
		path  string
		flags int
		want  error
	}{
		{filepath.Join(dir, "missing"), 0, fs.ErrNotExist},
		{link, unix.O_NOFOLLOW, unix.ELOOP},
		{file, unix.O_DIRECTORY, unix.ENOTDIR},
	} {
		f, err := Open(tc.path, tc.flags)
		var pe *fs.PathError
		if err == nil || !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Path != tc.path {
			t.Errorf("Open(%s, %#x) = %v, want a PathError for it wrapping %v", tc.path, tc.flags, err, tc.want)
		}
		if f != nil {
			f.Close()
		}
	}
}

// TestOpenNonBlock: with O_NONBLOCK, opening a FIFO that no one writes
// returns at once, and the file comes back in blocking mode, which os
// does not offer to the poller.
func TestOpenNonBlock(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(fifo, unix.O_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("flags %#x, %v: still non-blocking", fl, err)
	}
}

// TestOpenRegular: a regular file opens with its stat; a FIFO that no one
// writes and a directory are refused at once with ErrNotRegular, and a
// missing file is the open's PathError.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("xyz"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, st, err := OpenRegular(file)
	if err != nil || st.Size() != 3 {
		t.Fatalf("OpenRegular(file): %v, %v", st, err)
	}
	f.Close()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, dir} {
		if f, _, err := OpenRegular(p); !errors.Is(err, ErrNotRegular) || f != nil {
			t.Errorf("OpenRegular(%s): %v, %v; want ErrNotRegular", p, f, err)
		}
	}
	var pe *fs.PathError
	if _, _, err := OpenRegular(filepath.Join(dir, "none")); !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenRegular of a missing file: %v", err)
	}
}

// TestReadFile: a file is read whole, past the first buffer too, one of
// /proc whose size stat does not tell as well; a missing one is a
// PathError naming it.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := make([]byte, 5000)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	for _, data := range [][]byte{nil, []byte("x"), big} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil || string(got) != string(data) {
			t.Errorf("ReadFile of %d bytes: %d bytes, %v", len(data), len(got), err)
		}
	}
	want, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile("/proc/self/status")
	// Both start with the process's name: this test binary's.
	if err != nil || len(got) == 0 || !strings.HasPrefix(string(got), strings.SplitN(string(want), "\n", 2)[0]) {
		t.Errorf("ReadFile(/proc/self/status) = %q, %v", got, err)
	}
	missing := filepath.Join(dir, "missing")
	var pe *fs.PathError
	if _, err := ReadFile(missing); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("ReadFile(missing) = %v, want a PathError for it", err)
	}
}

// TestWriteFile: a write replaces what it writes over in an existing file
// and creates none; a refused write is a PathError naming the file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("ab")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "ab345" {
		t.Errorf("file holds %q, want ab345 (written over, not truncated)", b)
	}
	missing := filepath.Join(dir, "missing")
	var pe *fs.PathError
	if err := WriteFile(missing, []byte("x")); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("WriteFile(missing) = %v, want a PathError for it", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile created %s", missing)
	}
	// /proc/self/oom_score_adj refuses a value out of range.
	if err := WriteFile("/proc/self/oom_score_adj", []byte("5000")); !errors.Is(err, unix.EINVAL) || !errors.As(err, &pe) {
		t.Errorf("WriteFile(oom_score_adj, 5000) = %v, want EINVAL in a PathError", err)
	}
}
