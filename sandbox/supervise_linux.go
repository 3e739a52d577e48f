package sandbox

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// cldStopped is CLD_STOPPED, the si_code of a child stopped by a signal.
const cldStopped = 5

// waitEvent waits until the child pid stops or exits; an exited child is
// left unreaped (WNOWAIT), a stop is taken.
func waitEvent(pid int) event {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || info.Code != cldStopped {
			return eventExited
		}
		unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil)
		return eventStopped
	}
}

// pinsThread reports whether cmd's child dies with the thread that
// starts it (Pdeathsig).
func pinsThread(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0
}
