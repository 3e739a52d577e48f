//go:build linux && !amd64 && !arm64

package linux

import "golang.org/x/sys/unix"

// stopWith stops the calling process with SIGSTOP, whatever sig asks: the
// kernel's struct sigaction, needed to let SIGTSTP stop a Go process, is
// spelled out only for amd64 and arm64 (stop_linux.go).
func stopWith(sig unix.Signal) error {
	return unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
}
