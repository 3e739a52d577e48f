package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Limits of Take: a tree beyond either is an error, so that a hostile
// directory can make neither every command slow nor gatedexec's memory
// large.
const (
	// MaxEntries bounds the entries walked, links followed included.
	MaxEntries = 10000
	// MaxBytes bounds the contents of all files together (32 MiB).
	MaxBytes = 32 << 20
)

// Tree is a directory tree read once: every entry's type and every
// regular file's contents, with a digest over them. Paths under its root
// are answered from the snapshot; every other path from the disk.
type Tree struct {
	root   string
	digest string
	// nodes are keyed by path relative to root, "." for root itself;
	// empty when root did not exist.
	nodes map[string]*node
	// order is every path of nodes but ".", in the order walked: sorted,
	// each directory before what it holds.
	order []string
}

// node is one entry of a Tree.
type node struct {
	// listed is the entry's type as its directory lists it: a symlink is
	// a symlink there, as in os.ReadDir.
	listed fs.FileMode
	// mode is the type bits of what the entry is, symlinks followed.
	mode     fs.FileMode
	dangling bool     // a symlink to nothing
	target   string   // a symlink's target, as written
	data     []byte   // a regular file's contents
	children []string // a directory's entry names, sorted
}

// Take reads the tree at root, made absolute first. Symlinks are
// hashed by target and followed, as the loaders follow them; a link loop
// ends at MaxEntries, as an error. A missing root is an empty tree.
//
// The digest covers every entry's relative path and type and every
// regular file's size and contents, in sorted order, so that any change
// to what a loader could read changes it.
func Take(root string) (*Tree, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("snapshot of %s: %w", root, err)
	}
	t := &Tree{root: abs, nodes: map[string]*node{}}
	w := walker{t: t, h: sha256.New()}
	st, err := os.Stat(t.root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.nodes = nil
	case err != nil:
		return nil, fmt.Errorf("snapshot of %s: %w", root, err)
	case !st.IsDir():
		return nil, fmt.Errorf("snapshot of %s: not a directory", root)
	default:
		t.nodes["."] = &node{listed: fs.ModeDir, mode: fs.ModeDir}
		if err := w.dir("."); err != nil {
			return nil, fmt.Errorf("snapshot of %s: %w", root, err)
		}
	}
	t.digest = hex.EncodeToString(w.h.Sum(nil))
	return t, nil
}

// walker is the state of one Take.
type walker struct {
	t       *Tree
	h       hash.Hash
	entries int
	bytes   int64
}

// dir reads the directory at rel, recording and hashing what it holds.
func (w *walker) dir(rel string) error {
	entries, err := os.ReadDir(filepath.Join(w.t.root, rel))
	if err != nil {
		return err
	}
	parent := w.t.nodes[rel]
	for _, e := range entries {
		if w.entries++; w.entries > MaxEntries {
			return fmt.Errorf("more than %d entries", MaxEntries)
		}
		r := filepath.Join(rel, e.Name())
		p := filepath.Join(w.t.root, r)
		fmt.Fprintf(w.h, "%q\x00", r)
		target := ""
		if e.Type()&fs.ModeSymlink != 0 {
			if target, err = os.Readlink(p); err != nil {
				return err
			}
			fmt.Fprintf(w.h, "link %q\x00", target)
		}
		parent.children = append(parent.children, e.Name())
		n := &node{listed: e.Type(), target: target}
		w.t.nodes[r] = n
		w.t.order = append(w.t.order, r)
		st, err := os.Stat(p)
		if err != nil {
			// Dangling: what a loader would find is nothing.
			n.dangling = true
			fmt.Fprintf(w.h, "dangling\x00")
			continue
		}
		n.mode = st.Mode().Type()
		switch {
		case st.IsDir():
			fmt.Fprintf(w.h, "dir\x00")
			if err := w.dir(r); err != nil {
				return err
			}
		case st.Mode().IsRegular():
			data, err := Disk{}.ReadFile(p, MaxBytes-w.bytes)
			if errors.Is(err, ErrTooLarge) {
				return fmt.Errorf("files larger than %d bytes in all", MaxBytes)
			}
			if err != nil {
				return err
			}
			w.bytes += int64(len(data))
			n.data = data
			// The length of what was read, not the size the stat gave:
			// a file that changed while read, or one in /proc (size 0),
			// would otherwise let its bytes pass for entries the tree
			// does not hold, and two trees share a digest.
			fmt.Fprintf(w.h, "file %d\x00", len(data))
			w.h.Write(data)
		default:
			fmt.Fprintf(w.h, "other %v\x00", st.Mode().Type())
		}
	}
	return nil
}

// Entry describes one entry of a Tree, for showing what a digest covers.
type Entry struct {
	// Path is relative to the root.
	Path string
	// Link is a symlink's target as written, empty for anything else.
	Link string
	// Mode is the type of what the entry is, symlinks followed; Dangling
	// is true for a symlink to nothing.
	Mode     fs.FileMode
	Dangling bool
	// Size is a regular file's size.
	Size int64
}

// Entries returns every entry of the tree, sorted by path, each directory
// before what it holds.
func (t *Tree) Entries() []Entry {
	out := make([]Entry, 0, len(t.order))
	for _, rel := range t.order {
		n := t.nodes[rel]
		out = append(out, Entry{Path: rel, Link: n.target, Mode: n.mode, Dangling: n.dangling, Size: int64(len(n.data))})
	}
	return out
}

// Root returns the directory the tree was taken of.
func (t *Tree) Root() string { return t.root }

// Digest returns the hex SHA-256 digest of the tree.
func (t *Tree) Digest() string { return t.digest }

// lookup returns name's path relative to the root and its node, and
// whether name is under the root at all.
func (t *Tree) lookup(name string) (string, *node, bool) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", nil, false
	}
	rel, err := filepath.Rel(t.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil, false
	}
	return rel, t.nodes[rel], true
}

// missing returns the error the disk gave for rel, a path the tree holds
// nothing at: ENOTDIR below a file, as the kernel says, else not-exist,
// which the loaders take as "look elsewhere".
func (t *Tree) missing(rel string) error {
	for d := filepath.Dir(rel); rel != "." && t.nodes != nil; d = filepath.Dir(d) {
		if n := t.nodes[d]; n != nil {
			if !n.dangling && !n.mode.IsDir() {
				return syscall.ENOTDIR
			}
			break
		}
		if d == "." {
			break
		}
	}
	return fs.ErrNotExist
}

// Stat returns what the snapshot holds at name, or the disk's answer for
// a path outside the tree.
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	rel, n, in := t.lookup(name)
	if !in {
		return Disk{}.Stat(name)
	}
	if n == nil || n.dangling {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: t.missing(rel)}
	}
	return n.info(filepath.Base(name)), nil
}

// ReadDir returns the entries of the directory name in the snapshot, or
// the disk's answer for a path outside the tree.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	rel, n, in := t.lookup(name)
	if !in {
		return Disk{}.ReadDir(name)
	}
	if n == nil || n.dangling {
		return nil, &fs.PathError{Op: "open", Path: name, Err: t.missing(rel)}
	}
	if !n.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: errors.New("not a directory")}
	}
	out := make([]fs.DirEntry, 0, len(n.children))
	for _, c := range n.children {
		out = append(out, dirEntry{name: c, n: t.nodes[filepath.Join(rel, c)]})
	}
	return out, nil
}

// ReadFile returns the contents of the regular file name as the snapshot
// holds them, or the disk's for a path outside the tree.
func (t *Tree) ReadFile(name string, limit int64) ([]byte, error) {
	data, in, err := t.file(name, limit)
	if !in {
		return Disk{}.ReadFile(name, limit)
	}
	// The caller may keep or change what it gets; the snapshot stays.
	return slices.Clone(data), err
}

// file returns the snapshot's contents of the regular file name, not to
// be changed, and whether the tree holds name at all (false for a path
// outside it, which the disk answers for).
func (t *Tree) file(name string, limit int64) ([]byte, bool, error) {
	rel, n, in := t.lookup(name)
	switch {
	case !in:
		return nil, false, nil
	case n == nil || n.dangling:
		return nil, true, &fs.PathError{Op: "open", Path: name, Err: t.missing(rel)}
	case !n.mode.IsRegular():
		return nil, true, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	case int64(len(n.data)) > limit:
		return nil, true, tooLarge(name, limit)
	}
	return n.data, true, nil
}

// info returns n's file info under name.
func (n *node) info(name string) fs.FileInfo {
	return fileInfo{name: name, mode: n.mode, size: int64(len(n.data))}
}

// dirEntry is the fs.DirEntry of a node.
type dirEntry struct {
	name string
	n    *node
}

func (e dirEntry) Name() string      { return e.name }
func (e dirEntry) IsDir() bool       { return e.n.listed.IsDir() }
func (e dirEntry) Type() fs.FileMode { return e.n.listed }

// Info returns the entry's info, symlinks followed, where os.ReadDir's
// would describe the link itself; the loaders use Stat for that.
func (e dirEntry) Info() (fs.FileInfo, error) {
	if e.n.dangling {
		return nil, &fs.PathError{Op: "stat", Path: e.name, Err: fs.ErrNotExist}
	}
	return e.n.info(e.name), nil
}

// fileInfo is the fs.FileInfo of a node. Snapshots keep no times or
// permissions: the loaders look at neither.
type fileInfo struct {
	name string
	mode fs.FileMode
	size int64
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return i.mode }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fileInfo) Sys() any           { return nil }
