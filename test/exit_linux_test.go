package test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// reaperEnv makes this test binary the subreaper of reapGatedexec (set by
// TestExitLeavesUnmapToAChild): its value is the gatedexec to run, and
// the arguments to run it with follow this binary's own.
const reaperEnv = "GATEDEXEC_TEST_REAPER"

// init runs reapGatedexec instead of the tests when reaperEnv is set.
func init() {
	if bin := os.Getenv(reaperEnv); bin != "" {
		args := os.Args[1:]
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		fmt.Println(reapGatedexec(bin, args))
		os.Exit(0)
	}
}

// reapGatedexec runs bin with args as a child subreaper, so that what
// gatedexec leaves running when it exits is reparented here, and reports
// how gatedexec ended and what else this process reaped within 10 s.
func reapGatedexec(bin string, args []string) string {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return "prctl: " + err.Error()
	}
	c := exec.Command(bin, args...)
	if err := c.Start(); err != nil {
		return "start: " + err.Error()
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(c.Process.Pid, &ws, 0, nil); err != nil {
		return "wait: " + err.Error()
	}
	report := fmt.Sprintf("gatedexec exit %d", ws.ExitStatus())
	var others []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.ECHILD {
			break
		}
		if pid > 0 {
			others = append(others, fmt.Sprintf("exit %d", ws.ExitStatus()))
			continue
		}
		time.Sleep(time.Millisecond)
	}
	return report + "; others: " + strings.Join(others, ", ")
}

// TestExitLeavesUnmapToAChild: on linux/amd64 a gatedexec that ran a
// command exits through exitunmap, whose child outlives it until it has
// exited and then exits 0: a subreaper of gatedexec reaps gatedexec, then
// exactly that child. One that ran none (version), whose exit unmaps
// little, leaves nothing behind, as does every gatedexec elsewhere and on
// a kernel without pidfds (before 5.3).
func TestExitLeavesUnmapToAChild(t *testing.T) {
	pidfds := false
	if fd, err := unix.PidfdOpen(os.Getpid(), 0); err == nil {
		unix.Close(fd)
		pidfds = true
	}
	for _, tt := range []struct {
		args []string
		held bool
	}{
		{[]string{"version"}, false},
		// Unrestricted: run without a helper, which would linger.
		{[]string{"sandbox", "-p", "full-access", "--", "true"}, true},
	} {
		c := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, tt.args...)...)
		c.Env = append(os.Environ(), reaperEnv+"="+gatedexecBin)
		c.Dir = t.TempDir()
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%q: the reaper: %v\n%s", tt.args, err, out)
		}
		want := "gatedexec exit 0; others: "
		if tt.held && runtime.GOARCH == "amd64" && pidfds {
			want += "exit 0"
		}
		if got, want := strings.TrimSpace(string(out)), strings.TrimSpace(want); got != want {
			t.Errorf("%q: the reaper reports %q, want %q", tt.args, got, want)
		}
	}
}
