package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/gatedexec/gatedexec/internal/atomicfile"
)

// TrustStore records which workspaces the user trusts, each with a digest
// of its .gatedexec directory, so that any change to that directory needs
// trust again.
type TrustStore struct {
	// Dir holds one record per trusted workspace.
	Dir string
}

// trustRecord is the on-disk form of one trust decision.
type trustRecord struct {
	Workspace string `json:"workspace"`
	Digest    string `json:"digest"`
}

// recordPath names the record for workspace: a hash of its path, so any
// path maps to a safe file name.
func (t *TrustStore) recordPath(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(t.Dir, hex.EncodeToString(sum[:16])+".json")
}

// IsTrusted reports whether workspace is trusted and its .gatedexec
// directory is unchanged since. A nil store trusts nothing.
func (t *TrustStore) IsTrusted(workspace string) (bool, error) {
	if t == nil || t.Dir == "" {
		return false, nil
	}
	b, err := os.ReadFile(t.recordPath(workspace))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("trust record for %s: %w", workspace, err)
	}
	var rec trustRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Workspace != workspace {
		// A damaged or foreign record trusts nothing.
		return false, nil
	}
	d, err := Digest(WorkspaceLayerDir(workspace))
	if err != nil {
		return false, err
	}
	return d == rec.Digest, nil
}

// Trust records workspace as trusted with the current digest of its
// .gatedexec directory, and returns that digest.
func (t *TrustStore) Trust(workspace string) (string, error) {
	d, err := Digest(WorkspaceLayerDir(workspace))
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(trustRecord{Workspace: workspace, Digest: d})
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(t.recordPath(workspace), b); err != nil {
		return "", fmt.Errorf("recording trust for %s: %w", workspace, err)
	}
	return d, nil
}

// Revoke forgets any trust in workspace. Revoking an untrusted workspace is
// not an error.
func (t *TrustStore) Revoke(workspace string) error {
	err := os.Remove(t.recordPath(workspace))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("revoking trust for %s: %w", workspace, err)
	}
	return nil
}

// maxDigestFiles bounds the walk so a hostile .gatedexec cannot make every
// command slow; a larger directory is an error.
const maxDigestFiles = 10000

// Digest hashes the tree at dir: every entry's relative path, type and, for
// regular files, contents, in sorted order. Symlinks are hashed by target
// and followed for content, since the loaders follow them too. A missing
// dir has the digest of an empty tree.
func Digest(dir string) (string, error) {
	h := sha256.New()
	n := 0
	var walk func(rel string) error
	walk = func(rel string) error {
		full := filepath.Join(dir, rel)
		entries, err := os.ReadDir(full)
		if err != nil {
			return err
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if n++; n > maxDigestFiles {
				return fmt.Errorf("more than %d entries", maxDigestFiles)
			}
			r := filepath.Join(rel, e.Name())
			p := filepath.Join(dir, r)
			fmt.Fprintf(h, "%q\x00", r)
			if e.Type()&fs.ModeSymlink != 0 {
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				fmt.Fprintf(h, "link %q\x00", target)
			}
			st, err := os.Stat(p)
			if err != nil {
				fmt.Fprintf(h, "dangling\x00")
				continue
			}
			switch {
			case st.IsDir():
				// A linked directory is walked like any other: its files
				// are what the loaders read. A link loop ends at
				// maxDigestFiles, as an error.
				fmt.Fprintf(h, "dir\x00")
				if err := walk(r); err != nil {
					return err
				}
			case st.Mode().IsRegular():
				if err := hashFile(h, p, st.Size()); err != nil {
					return err
				}
			default:
				fmt.Fprintf(h, "other %v\x00", st.Mode().Type())
			}
		}
		return nil
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	if err := walk("."); err != nil {
		return "", fmt.Errorf("digest of %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(h io.Writer, path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "file %d\x00", size)
	_, err = io.Copy(h, f)
	return err
}

// writeFileAtomic writes b to path through a temporary file and a rename, so
// a reader never sees half a file.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, true)
}
