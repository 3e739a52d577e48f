package gate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/internal/plainfile"
)

// sourcesOf lists what a configuration was read from: each layer's
// directory, its config.toml, rules and profiles directories, the trust
// records (trusting or revoking a workspace changes its layer), and
// extra (rules paths, the --config file, a profile file).
func sourcesOf(c *config.Config, extra []string) []string {
	d := c.Dirs
	var out []string
	for _, dir := range []string{d.System, d.User, config.WorkspaceLayerDir(d.Workspace)} {
		if dir == "" {
			continue
		}
		out = append(out, dir, filepath.Join(dir, "config.toml"), filepath.Join(dir, "rules"), filepath.Join(dir, "profiles"))
	}
	out = append(out, d.TrustDir())
	for _, p := range extra {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// fingerprint digests what stat says of each path and, for a directory,
// of each entry in it: a file written, added, removed or renamed changes
// its size, modification time, inode or the entry list. It reads no file
// content, so a per-request check costs a few stat calls. Rules and
// profile directories hold files, not trees (the loaders read one
// level), so one level is enough.
func fingerprint(paths []string) string {
	h := sha256.New()
	// Each record is a length-prefixed path and fixed-size fields: no two
	// different lists of stat results write the same bytes.
	var rec []byte
	stat := func(p string) os.FileInfo {
		rec = binary.BigEndian.AppendUint64(rec[:0], uint64(len(p)))
		rec = append(rec, p...)
		st, err := os.Stat(p)
		if err != nil {
			h.Write(append(rec, 0))
			return nil
		}
		rec = append(rec, 1)
		rec = binary.BigEndian.AppendUint32(rec, uint32(st.Mode()))
		rec = binary.BigEndian.AppendUint64(rec, uint64(st.Size()))
		rec = binary.BigEndian.AppendUint64(rec, uint64(st.ModTime().UnixNano()))
		h.Write(binary.BigEndian.AppendUint64(rec, inode(st)))
		return st
	}
	for _, p := range paths {
		st := stat(p)
		if st == nil || !st.IsDir() {
			continue
		}
		names, err := dirNames(p)
		if err != nil {
			// A directory that cannot be read differs from every listing.
			h.Write([]byte{2})
			continue
		}
		for _, name := range names {
			stat(filepath.Join(p, name))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dirNames returns the names in directory dir, sorted. It opens dir
// without offering it to Go's poller (plainfile), which a directory
// refuses at the cost of system calls on every request.
func dirNames(dir string) ([]string, error) {
	f, err := plainfile.Open(dir, unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}
