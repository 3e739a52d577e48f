//go:build linux || darwin

package test

import (
	"os"

	"golang.org/x/sys/unix"
)

// cookedMode reports whether the terminal of the pty master m is in
// canonical mode with echo. It reads the mode through SyscallConn, not
// Fd, which would make m blocking and keep Close from hanging it up.
func cookedMode(m *os.File) (bool, error) {
	rc, err := m.SyscallConn()
	if err != nil {
		return false, err
	}
	var t *unix.Termios
	var terr error
	if err := rc.Control(func(fd uintptr) { t, terr = unix.IoctlGetTermios(int(fd), ioctlGetTermios) }); err != nil {
		return false, err
	}
	if terr != nil {
		return false, terr
	}
	return t.Lflag&unix.ICANON != 0 && t.Lflag&unix.ECHO != 0, nil
}
