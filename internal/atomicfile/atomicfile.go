// Package atomicfile replaces files so that a reader sees the old content
// or the new, never part of either, and a failed write leaves the old.
package atomicfile

import "os"

// Write replaces path with data: it writes a temporary file (mode 0600) in
// path's directory, syncs it to disk when sync is set, and renames it over
// path (see Target). On any error the temporary file is removed and path
// is untouched.
func Write(path string, data []byte, sync bool) error {
	return WritePerm(path, data, sync, 0o600)
}

// WritePerm is Write giving the new file the permission bits perm, as
// the umask does not change them: an edit of a file keeps its mode.
func WritePerm(path string, data []byte, sync bool, perm os.FileMode) error {
	t, err := Open(path)
	if err != nil {
		return err
	}
	defer t.Close()
	return t.WritePerm(data, sync, perm)
}
