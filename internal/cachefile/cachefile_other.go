//go:build !unix

package cachefile

import (
	"io/fs"
	"os"
	"time"
)

// Supported reports whether this platform can check who owns a cache
// entry; without that check there is no cache.
const Supported = false

func ownedPrivately(fs.FileInfo) bool { return false }

func openNoFollow(name string) (*os.File, error) { return nil, fs.ErrNotExist }

// trim has nothing to do where there is no cache.
func trim(string, time.Time) {}

func touch(*os.File, time.Time) {}
