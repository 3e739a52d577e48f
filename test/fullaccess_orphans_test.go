package test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFullAccessNoOrphans: full-access has no PID namespace, yet a run
// still ends the processes its command left in a session of their own
// (setsid), through the run's cgroup, when the command exits and when the
// timeout fires. Root only: an unprivileged gatedexec gets no cgroup on a
// v1 host, and keeps the process group kill alone (README, Sandbox notes).
func TestFullAccessNoOrphans(t *testing.T) {
	requireFeature(t, os.Geteuid() == 0, "root (a v1 host gives only root a cgroup of the run's own)")
	f := newFixture(t)
	t.Run("command-exits", func(t *testing.T) {
		t.Cleanup(func() { killMatching("sleep 31421") })
		out, code := f.sandboxed(t, "full-access", "sh", "-c", setsidThen("sleep 31421", "echo started"))
		if code != 0 || !strings.Contains(out, "started") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		waitGone(t, "sleep 31421")
	})
	t.Run("timeout", func(t *testing.T) {
		t.Cleanup(func() { killMatching("sleep 31422", "sleep 31423") })
		prof := writeProfile(t, f, "fa-timeout.toml", "extends = \"full-access\"\n[limits]\ntimeout = \"1s\"\n")
		out, code := f.sandboxed(t, prof, "sh", "-c", `trap "" TERM; `+setsidThen("sleep 31422", "sleep 31423"))
		if code == 0 {
			t.Errorf("a timed-out command exited 0:\n%s", out)
		}
		waitGone(t, "sleep 31422", "sleep 31423")
	})
}

// killMatching ends what a failed run left behind, so that one failure
// does not leave sleeps for hours.
func killMatching(pats ...string) {
	for _, p := range processesMatching(pats...) {
		pid, _, _ := strings.Cut(p, ":")
		if n, err := strconv.Atoi(pid); err == nil {
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
}

// setsidThen is a script that starts bg in a session of its own, waits
// until it is in it, then runs fg: a command that exits at once could
// otherwise end before its child left the process group.
func setsidThen(bg, fg string) string {
	return `rm -f setsid.ready; setsid sh -c 'touch setsid.ready; exec ` + bg + `' & ` +
		`while [ ! -e setsid.ready ]; do sleep 0.01; done; ` + fg
}
