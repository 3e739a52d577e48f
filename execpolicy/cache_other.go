//go:build !unix

package execpolicy

import (
	"io/fs"
	"os"
)

// cacheSupported reports whether this platform can check who owns a cache
// entry; without that check the cache is off.
const cacheSupported = false

func ownedPrivately(fs.FileInfo) bool { return false }

func fileIdentity(fs.FileInfo) string { return "" }

func openNoFollow(name string) (*os.File, error) { return os.Open(name) }
