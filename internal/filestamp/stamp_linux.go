package filestamp

import (
	"io/fs"
	"os"
	"syscall"
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

// Of returns the stamp of the regular file open as f, whose fstat is fi
// (the caller has it: the open that is about to read it checked it) and
// whose bytes are about to be read, as of now (read before that fstat):
// the zero Stamp when it cannot vouch for them (see the package comment).
func Of(f *os.File, fi fs.FileInfo, now time.Time) Stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	var sfs syscall.Statfs_t
	if !ok || syscall.Fstatfs(int(f.Fd()), &sfs) != nil || !localFS(sfs.Type) ||
		st.Mode&unix.S_IFMT != unix.S_IFREG || !settled(st.Ctim.Nano(), now) {
		return Stamp{}
	}
	return stampFields(st)
}

// Holds reports whether the file name leads to, following links as open
// does, still has the stamp s; never for the zero Stamp.
func Holds(name string, s Stamp) bool {
	if s.IsZero() {
		return false
	}
	var sfs syscall.Statfs_t
	var st syscall.Stat_t
	// The file system first: a stamp that matches then names a file on
	// the device stat saw, whose type the statfs of the same path saw
	// unless the path moved to another mount in between, which gives
	// another device.
	if syscall.Statfs(name, &sfs) != nil || !localFS(sfs.Type) || syscall.Stat(name, &st) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFREG && stampFields(&st) == s
}

func stampFields(st *syscall.Stat_t) Stamp {
	return Stamp{Dev: st.Dev, Ino: st.Ino, Size: uint64(st.Size), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
