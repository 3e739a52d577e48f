package sandbox

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitEvent waits until the child pid exits, leaving it unreaped: a
// kqueue NOTE_EXIT fires when the process ends, before anyone waits for
// it. macOS has no waitid(WNOWAIT) in x/sys; stops are not reported, and
// a failure to watch (the child already gone) counts as its exit.
func waitEvent(pid int) event {
	kq, err := unix.Kqueue()
	if err != nil {
		return eventExited
	}
	defer unix.Close(kq)
	ev := []unix.Kevent_t{{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	out := make([]unix.Kevent_t, 1)
	for {
		_, err := unix.Kevent(kq, ev, out, nil)
		if err != unix.EINTR {
			return eventExited
		}
		ev = nil
	}
}

// pinsThread reports false: macOS has no Pdeathsig.
func pinsThread(*exec.Cmd) bool { return false }
