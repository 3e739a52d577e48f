// Package atomicfile replaces files so that a reader sees the old content
// or the new, never part of either, and a failed write leaves the old.
package atomicfile

// Write replaces path with data: it writes a temporary file (mode 0600) in
// path's directory, syncs it to disk when sync is set, and renames it over
// path (see Target). On any error the temporary file is removed and path
// is untouched.
func Write(path string, data []byte, sync bool) error {
	t, err := Open(path)
	if err != nil {
		return err
	}
	defer t.Close()
	return t.Write(data, sync)
}
