package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/internal/owndir"
	"github.com/gatedexec/gatedexec/internal/snapshot"
	"github.com/gatedexec/gatedexec/profiles"
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

// trusted returns the snapshot of workspace's .gatedexec directory when
// the workspace is trusted and the snapshot has the recorded digest, and
// nil when it is not trusted. The layer must then be loaded from that
// snapshot, never read again from the disk: a file swapped in after the
// check would be used as trusted.
func (t *TrustStore) trusted(workspace string) (*snapshot.Tree, error) {
	if t == nil || t.Dir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(t.recordPath(workspace))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust record for %s: %w", workspace, err)
	}
	// Anyone else able to write the store could plant a record, as in a
	// session store.
	if err := owndir.Check(t.Dir); err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	var rec trustRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Workspace != workspace {
		// A damaged or foreign record trusts nothing.
		return nil, nil
	}
	tree, err := LayerSnapshot(workspace)
	if err != nil {
		return nil, err
	}
	if tree.Digest() != rec.Digest {
		return nil, nil
	}
	return tree, nil
}

// ErrDigestMismatch is wrapped by Trust's error when the layer's digest
// is not the one the caller expected.
var ErrDigestMismatch = errors.New("digest mismatch")

// ErrBadDigest is wrapped by Trust's error when want is not a digest at
// all.
var ErrBadDigest = errors.New("bad digest")

// ErrBadLayer is wrapped by Trust's error when the layer's config.toml
// does not load as a trusted workspace layer's would.
var ErrBadLayer = errors.New("bad workspace layer")

// checkLayerSettings loads the config.toml of the layer dir from tree as
// Load would for a trusted workspace layer.
func checkLayerSettings(tree *snapshot.Tree, dir string) error {
	s, err := readSettings(tree, filepath.Join(dir, "config.toml"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if profiles.IsFile(s.Profile) {
		return fmt.Errorf("%s: profile %q: a workspace layer names a profile of its profiles directory, not a file", s.Origin[KeyProfile], s.Profile)
	}
	return nil
}

// DigestLen is the length of a digest in hex digits. Trust's want must be
// a whole digest, not a prefix: the layer's author could have made two
// trees sharing a prefix (for 16 digits, a birthday search of about 2^32
// hashes), to be reviewed as one and trusted as the other.
const DigestLen = 2 * sha256.Size

// Trust records workspace as trusted with the digest of its .gatedexec
// directory as it is now, and returns the snapshot that digest is of.
// When want is not empty, it must be that digest, or nothing is recorded:
// the user reviewed the layer when it had that digest (LayerSnapshot
// shows it), and what is trusted must be what was reviewed.
func (t *TrustStore) Trust(workspace, want string) (*snapshot.Tree, error) {
	if want != "" && (len(want) != DigestLen || strings.Trim(want, "0123456789abcdef") != "") {
		return nil, fmt.Errorf("%w %q: want the %d lowercase hex digits of a digest", ErrBadDigest, want, DigestLen)
	}
	tree, err := LayerSnapshot(workspace)
	if err != nil {
		return nil, err
	}
	if d := tree.Digest(); want != "" && d != want {
		return nil, fmt.Errorf("%w: %s has digest %s, not %s: it changed since it was reviewed", ErrDigestMismatch, tree.Root(), d, want)
	}
	// Trusting a layer whose config.toml does not load would only make
	// every later run there fail (78): say so now, where it can be fixed.
	if err := checkLayerSettings(tree, WorkspaceLayerDir(workspace)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadLayer, err)
	}
	b, err := json.Marshal(trustRecord{Workspace: workspace, Digest: tree.Digest()})
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(t.recordPath(workspace), b); err != nil {
		return nil, fmt.Errorf("recording trust for %s: %w", workspace, err)
	}
	return tree, nil
}

// LayerSnapshot takes the snapshot of workspace's .gatedexec directory that a
// trust record's digest is of, for showing what trust would cover.
func LayerSnapshot(workspace string) (*snapshot.Tree, error) {
	return snapshot.Take(WorkspaceLayerDir(workspace))
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

// writeFileAtomic writes b to path through a temporary file and a rename, so
// a reader never sees half a file.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, true)
}
