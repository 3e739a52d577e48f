package approval

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)

// flushInput discards typeahead, so that keys pressed before the prompt
// was shown cannot answer it.
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }

// fread is FREAD of <sys/fcntl.h>, which x/sys/unix does not export.
const fread = 0x1
