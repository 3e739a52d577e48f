//go:build !unix

package cachefile

import (
	"io/fs"
	"os"
)

// Supported reports whether this platform can check who owns a cache
// entry; without that check there is no cache.
const Supported = false

func ownedPrivately(fs.FileInfo) bool { return false }

func openNoFollow(name string) (*os.File, error) { return nil, fs.ErrNotExist }
