//go:build !linux

package execpolicy

import "io/fs"

// runningExecutable returns the path of the running executable and the
// file info of what is at that path now.
func runningExecutable() (string, fs.FileInfo, error) { return executableByPath() }
