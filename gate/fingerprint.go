package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatedexec/gatedexec/config"
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
	stat := func(p string) os.FileInfo {
		st, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(h, "%q missing\n", p)
			return nil
		}
		fmt.Fprintf(h, "%q %v %d %d %v\n", p, st.Mode(), st.Size(), st.ModTime().UnixNano(), inode(st))
		return st
	}
	for _, p := range paths {
		st := stat(p)
		if st == nil || !st.IsDir() {
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			fmt.Fprintf(h, "%q unreadable\n", p)
			continue
		}
		for _, e := range entries {
			stat(filepath.Join(p, e.Name()))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
