package snapshot

import "io/fs"

// Trees is an FS over several snapshots: a path under one tree's root is
// answered by the first tree that holds it, every other path by the disk.
// A configuration can hold two snapshots at once (the managed system
// layer and a trusted workspace layer), each read once and checked.
type Trees []*Tree

// Holds reports whether name is under the tree's root, so that the
// snapshot, not the disk, answers for it.
func (t *Tree) Holds(name string) bool {
	_, _, in := t.lookup(name)
	return in
}

// of returns the FS that answers for name.
func (ts Trees) of(name string) FS {
	for _, t := range ts {
		if t.Holds(name) {
			return t
		}
	}
	return Disk{}
}

// Stat is the Stat of the tree holding name, else the disk's.
func (ts Trees) Stat(name string) (fs.FileInfo, error) { return ts.of(name).Stat(name) }

// ReadDir is the ReadDir of the tree holding name, else the disk's.
func (ts Trees) ReadDir(name string) ([]fs.DirEntry, error) { return ts.of(name).ReadDir(name) }

// ReadFile is the ReadFile of the tree holding name, else the disk's.
func (ts Trees) ReadFile(name string, limit int64) ([]byte, error) {
	return ts.of(name).ReadFile(name, limit)
}
