package execpolicy

import (
	"io/fs"
	"os"
)

// runningExecutable returns the file info of the executable that is
// running, from /proc/self/exe, which names its inode even once the path
// has been replaced, and costs one system call where resolving the path
// first costs two. Without /proc it falls back to the path.
func runningExecutable() (string, fs.FileInfo, error) {
	if st, err := os.Stat("/proc/self/exe"); err == nil {
		return "", st, nil
	}
	return executableByPath()
}
