//go:build unix

package owndir

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/plainfile"
)

// Open opens dir, without following a link in its place, and returns it
// when it passes Check as opened: what is then done through the
// descriptor (openat, unlinkat, a helper's slots) stays in the directory
// checked, whatever its name is made to lead to meanwhile.
func Open(dir string) (*os.File, error) {
	d, err := plainfile.Open(dir, unix.O_DIRECTORY|unix.O_NOFOLLOW)
	if err != nil {
		return nil, err
	}
	fi, err := d.Stat()
	if err == nil {
		err = checkInfo(dir, fi)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}
