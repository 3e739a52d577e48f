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
