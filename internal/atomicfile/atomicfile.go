// Package atomicfile replaces files so that a reader sees the old content
// or the new, never part of either, and a failed write leaves the old.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data: it writes a temporary file (mode 0600) in
// path's directory, syncs it to disk when sync is set, and renames it over
// path. On any error the temporary file is removed and path is untouched.
func Write(path string, data []byte, sync bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// CheckWritable reports whether Write(path, ...) can be expected to work,
// without changing path: it is not a directory (nor another non-regular
// file), and a temporary file can be made and removed beside it. Callers
// check before running a command, so that a result file that cannot be
// written fails the run before the command has had any effect, not after.
func CheckWritable(path string) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("writing %s: not a regular file (%s)", path, st.Mode().Type())
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
