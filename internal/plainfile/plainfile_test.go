package plainfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
