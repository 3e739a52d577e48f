//go:build !linux

package sandbox

import (
	"os"
	"time"
)

// readListing reads the directory path, keeping of its entries only what
// a walk needs (dirListing). Only root may be reached through a link.
func readListing(path string, root bool, _ *[]byte) (dirListing, error) {
	fi, err := os.Lstat(path)
	if err == nil && !root && !fi.IsDir() {
		return dirListing{}, os.ErrNotExist
	}
	if err != nil {
		return dirListing{}, err
	}
	d, err := os.Open(path)
	if err != nil {
		return dirListing{}, err
	}
	defer d.Close()
	if fi, err = d.Stat(); err != nil {
		return dirListing{}, err
	}
	ents, err := d.ReadDir(-1)
	if err != nil {
		return dirListing{}, err
	}
	l := dirListing{ino: inodeOf(fi), ctime: ctimeOf(fi), entries: len(ents)}
	for _, e := range ents {
		l.marks.see(e.Name())
		switch {
		case e.Name() == ".git":
			l.dotgit = true
		case e.IsDir():
			l.subdirs = append(l.subdirs, e.Name())
		}
	}
	return l, nil
}

// pathStamp returns the inode and change time of path, not following a
// link, and whether it is a directory.
func pathStamp(path string) (ino uint64, ctime time.Time, dir bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, time.Time{}, false, err
	}
	return inodeOf(fi), ctimeOf(fi), fi.IsDir(), nil
}

// coarseNow is a time no later than the stamp of a file change made after
// it: a second back, for file systems whose clock is coarser than
// time.Now's.
func coarseNow() time.Time { return time.Now().Add(-time.Second) }
