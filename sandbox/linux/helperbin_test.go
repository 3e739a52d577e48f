//go:build linux

package linux

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
	"testing/fstest"

	"golang.org/x/sys/unix"
)

// TestHelperELFMissing: a gatedexec built without its helper (a plain go
// build) has no program to run, and says how to build it; nothing runs.
func TestHelperELFMissing(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"absent": {"helperbin/README.md": {Data: []byte("x")}},
		"empty":  {helperName: {Data: nil}},
	} {
		f, err := os.CreateTemp(t.TempDir(), "helper")
		if err != nil {
			t.Fatal(err)
		}
		if err := writeHelper(fsys, int(f.Fd())); !errors.Is(err, errNoHelper) {
			t.Errorf("%s: %v, want errNoHelper", name, err)
		}
		f.Close()
	}
}

// TestSealedHelper: what runs is the program built in, in a memfd that
// takes no write and no resize, read-only and closed at exec.
func TestSealedHelper(t *testing.T) {
	want, err := fs.ReadFile(helperDir, helperName)
	if err != nil || len(want) == 0 {
		t.Fatalf("no helper built in (%v): run make build", err)
	}
	f, err := sealedHelper()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seals, err := unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []int{unix.F_SEAL_SEAL, unix.F_SEAL_SHRINK, unix.F_SEAL_GROW, unix.F_SEAL_WRITE} {
		if seals&s == 0 {
			t.Errorf("seal %#x missing (seals %#x)", s, seals)
		}
	}
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_ACCMODE != unix.O_RDONLY {
		t.Errorf("flags %#x (%v), want read-only", fl, err)
	}
	if fd, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0); err != nil || fd&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor flags %#x (%v), want close-on-exec", fd, err)
	}
	got := make([]byte, len(want)+1)
	n, _ := f.ReadAt(got, 0)
	if !bytes.Equal(got[:n], want) {
		t.Errorf("memfd holds %d bytes, not the %d-byte helper", n, len(want))
	}
	// Reopened for writing through /proc, it still takes no write.
	w, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), unix.O_WRONLY, 0)
	if err == nil {
		_, werr := unix.Write(w, []byte("x"))
		unix.Close(w)
		if werr == nil {
			t.Error("a write to the sealed helper succeeded")
		}
	}
}
