package approval

import (
	"golang.org/x/sys/unix"
)

// makeRaw puts the terminal fd into a mode where one key press is read at
// once, unechoed, and Ctrl-C arrives as the byte 0x03 instead of a signal.
// Output processing stays on so that the prompt renders normally. It
// returns a function restoring the previous mode.
func makeRaw(fd int) (restore func() error, err error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN] = 1
	raw.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, err
	}
	return func() error { return unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}

// IsTerminal reports whether fd is a terminal. A character device is not
// enough: /dev/null is one too, and a caller with stdin on /dev/null has
// nobody to answer a prompt.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	return err == nil
}
