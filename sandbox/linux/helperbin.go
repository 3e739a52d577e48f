//go:build linux

package linux

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/cachefile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// helperFiles holds the helper program `make build` compiled
// (helperbin/README.md). The directory, not the file, is embedded so that
// a build without it (go vet, a plain go build) still compiles; such a
// binary refuses every run that needs the helper.
//
//go:embed helperbin
var helperDir embed.FS

// helperName is the helper program's path in helperDir.
const helperName = "helperbin/gatedexec-helper"

// errNoHelper is returned by a gatedexec built without its helper.
var errNoHelper = errors.New("sandbox: this gatedexec was built without its exec helper (sandbox/linux/helperbin/gatedexec-helper); build it with `make build`")

// writeHelper writes the helper program in fsys (helperDir) to fd, or
// returns errNoHelper. It copies through one small buffer: fs.ReadFile
// would copy the whole program (75 KB) onto the heap first, about twenty
// fresh pages faulted in on every sandboxed start.
func writeHelper(fsys fs.FS, fd int) error {
	f, err := fsys.Open(helperName)
	if errors.Is(err, fs.ErrNotExist) {
		return errNoHelper
	}
	if err != nil {
		return fmt.Errorf("sandbox: reading the helper: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	total := 0
	for {
		n, rerr := f.Read(buf)
		for off := 0; off < n; {
			w, err := unix.Write(fd, buf[off:n])
			if err != nil {
				return fmt.Errorf("sandbox: writing the helper memfd: %w", err)
			}
			off += w
		}
		total += n
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("sandbox: reading the helper: %w", rerr)
		}
	}
	if total == 0 {
		return errNoHelper
	}
	return nil
}

// sealedHelper returns a read-only descriptor (close-on-exec) of a memfd
// holding the helper program, sealed
// against every change, so that what runs is what was built into this
// binary: no file on disk for anyone to replace between checks. exec
// needs a descriptor without write access (ETXTBSY otherwise), so the
// memfd is reopened read-only and its writable descriptor closed.
func sealedHelper() (*os.File, error) {
	// MFD_EXEC (Linux 6.3) asks for an executable memfd where
	// vm.memfd_noexec would otherwise make it non-executable; an older
	// kernel refuses the flag, and its memfds are executable anyway.
	fd, err := unix.MemfdCreate("gatedexec-helper", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate("gatedexec-helper", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: helper memfd: %w", err)
	}
	defer unix.Close(fd)
	if err := writeHelper(helperDir, fd); err != nil {
		return nil, err
	}
	const seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		return nil, fmt.Errorf("sandbox: sealing the helper memfd: %w", err)
	}
	ro, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: reopening the helper memfd: %w", err)
	}
	got, err := unix.FcntlInt(uintptr(ro), unix.F_GET_SEALS, 0)
	if err != nil || got&seals != seals {
		unix.Close(ro)
		return nil, fmt.Errorf("sandbox: the helper memfd is not sealed (seals %#x): %v", got, err)
	}
	return os.NewFile(uintptr(ro), "gatedexec-helper"), nil
}

// helperCopyName is the name of the helper's copy in a cache directory
// for the gatedexec build build: a copy serves the build that wrote it.
func helperCopyName(build string) string {
	sum := sha256.Sum256([]byte("gatedexec-helper-1\n" + build))
	return "helper-" + hex.EncodeToString(sum[:16])
}

// cachedHelper returns the helper program's copy in c, written there
// first when there is none, open for reading, and its path: a helper started from it
// costs an open, where the sealed memfd costs writing the program into
// fresh memory on every start (0.07 ms of a sandboxed /bin/true, run by
// run against the memfd). The copy is a cache entry (cachefile.
// OpenProgram says what is checked and why its content is trusted); nil
// when there is none to trust or its file system executes no program,
// and the memfd serves.
func cachedHelper(c sandbox.BuildCache) (*os.File, string) {
	info, err := fs.Stat(helperDir, helperName)
	if err != nil || info.Size() == 0 {
		return nil, ""
	}
	name := helperCopyName(c.Build)
	f, ok := cachefile.OpenProgram(c.Dir, name, info.Size())
	if !ok {
		data, err := fs.ReadFile(helperDir, helperName)
		if err != nil {
			return nil, ""
		}
		cachefile.WriteProgram(c.Dir, name, data)
		if f, ok = cachefile.OpenProgram(c.Dir, name, info.Size()); !ok {
			return nil, ""
		}
	}
	var st unix.Statfs_t
	if unix.Fstatfs(int(f.Fd()), &st) != nil || st.Flags&unix.ST_NOEXEC != 0 {
		f.Close()
		return nil, ""
	}
	return f, filepath.Join(c.Dir, name)
}

// selfPath is the path the runner execs the helper by: its memfd, placed
// at selfFD in the child (helperFiles). Not the memfd's own number in the
// runner: the child's set-up moves its descriptors to the numbers above
// the highest it is given, which may be that one.
const selfPath = "/proc/self/fd/7"
