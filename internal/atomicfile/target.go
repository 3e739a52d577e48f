package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Target is a file to be replaced later, after a command that may change
// the tree around it has run: its directory is opened once, up front, and
// every later write goes into that directory by descriptor, creating the
// temporary file with O_NOFOLLOW and renaming it within the directory. A
// command that replaced the directory, or a component above it, with a
// symbolic link meanwhile cannot send the write elsewhere; a link it left
// at the name is replaced, not followed.
type Target struct {
	path, name string
	dir        *os.File
}

// Open opens path's directory and checks that a file can be made there
// and that path is not a directory or another non-regular file.
func Open(path string) (*Target, error) {
	dir, err := os.OpenFile(filepath.Dir(path), os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	t := &Target{path: path, name: filepath.Base(path), dir: dir}
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), t.name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil &&
		st.Mode&unix.S_IFMT != unix.S_IFREG && st.Mode&unix.S_IFMT != unix.S_IFLNK {
		dir.Close()
		return nil, fmt.Errorf("writing %s: not a regular file", path)
	}
	tmp, fd, err := t.create()
	if err != nil {
		dir.Close()
		return nil, err
	}
	unix.Close(fd)
	unix.Unlinkat(int(dir.Fd()), tmp, 0)
	return t, nil
}

// create makes a new temporary file in the target's directory.
func (t *Target) create() (string, int, error) {
	var b [8]byte
	rand.Read(b[:])
	tmp := "." + t.name + ".tmp-" + hex.EncodeToString(b[:])
	fd, err := unix.Openat(int(t.dir.Fd()), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return "", -1, fmt.Errorf("writing %s: %w", t.path, err)
	}
	return tmp, fd, nil
}

// Write replaces the target with data, as Write does.
func (t *Target) Write(data []byte, sync bool) error {
	return t.WritePerm(data, sync, 0o600)
}

// WritePerm replaces the target with data, as WritePerm does.
func (t *Target) WritePerm(data []byte, sync bool, perm os.FileMode) error {
	tmp, fd, err := t.create()
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	if perm.Perm() != 0o600 {
		err = f.Chmod(perm.Perm())
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(int(t.dir.Fd()), tmp, int(t.dir.Fd()), t.name)
	}
	if err != nil {
		unix.Unlinkat(int(t.dir.Fd()), tmp, 0)
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	return nil
}

// Close releases the directory; a nil Target has nothing to release.
func (t *Target) Close() error {
	if t == nil {
		return nil
	}
	return t.dir.Close()
}
