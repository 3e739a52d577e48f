package filestamp

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// localFS reports whether stamps on the file system of type magic vouch
// for a file's bytes: local ones, with change times the kernel keeps
// itself. Anything else (NFS, SMB, FUSE, FAT's two-second times) is
// hashed on every use.
func localFS(magic int64) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, // also ext2 and ext3
		unix.XFS_SUPER_MAGIC,
		unix.BTRFS_SUPER_MAGIC,
		unix.TMPFS_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC,
		unix.F2FS_SUPER_MAGIC,
		0x2fc12fc1: // ZFS
		return true
	}
	return false
}

// Of returns the stamp of the regular file open as f, whose bytes are
// about to be read, as of now (read before f's stat): the zero Stamp when
// it cannot vouch for them (see the package comment).
func Of(f *os.File, now time.Time) Stamp {
	fd := int(f.Fd())
	var st unix.Stat_t
	var sfs unix.Statfs_t
	if unix.Fstat(fd, &st) != nil || unix.Fstatfs(fd, &sfs) != nil {
		return Stamp{}
	}
	return stampOf(&st, &sfs, now)
}

// Holds reports whether the file name leads to, following links as open
// does, still has the stamp s; never for the zero Stamp.
func Holds(name string, s Stamp) bool {
	if s.IsZero() {
		return false
	}
	var sfs unix.Statfs_t
	var st unix.Stat_t
	// The file system first: a stamp that matches then names a file on
	// the device stat saw, whose type the statfs of the same path saw
	// unless the path moved to another mount in between, which gives
	// another device.
	if unix.Statfs(name, &sfs) != nil || !localFS(int64(sfs.Type)) || unix.Stat(name, &st) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFREG && stampFields(&st) == s
}

func stampOf(st *unix.Stat_t, sfs *unix.Statfs_t, now time.Time) Stamp {
	if st.Mode&unix.S_IFMT != unix.S_IFREG || !localFS(int64(sfs.Type)) || !settled(st.Ctim.Nano(), now) {
		return Stamp{}
	}
	return stampFields(st)
}

func stampFields(st *unix.Stat_t) Stamp {
	return Stamp{Dev: st.Dev, Ino: st.Ino, Size: uint64(st.Size), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
