package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestEscapeHostAdministration: as root, what the host's clock, network
// devices, filesystems and disks allow root is refused once its
// capabilities are gone, and block devices are not in the command's /dev.
func TestEscapeHostAdministration(t *testing.T) {
	requireIsolation(t)
	probe := buildProbe(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, probe := c.fixture(t, probe)
			for _, prof := range restricted {
				for _, op := range [][]string{{"adjtimex"}, {"clock_adjtime"}, {"mtu"}, {"fifreeze", "/"}, {"blockdev"}} {
					t.Run(prof+"/"+op[0], func(t *testing.T) {
						out, code := f.sandboxed(t, prof, append([]string{probe}, op...)...)
						expectProbe(t, out, code, false)
					})
				}
			}
			if c.name != "root" {
				return
			}
			// Positive controls, as root outside the sandbox: each call
			// works there (set to the value it has, so nothing changes).
			for _, op := range []string{"adjtimex", "clock_adjtime", "mtu", "blockdev"} {
				if out, err := exec.Command(probe, op).CombinedOutput(); err != nil {
					t.Errorf("control: %s as root outside the sandbox: %v\n%s", op, err, out)
				}
			}
		})
	}
}

// TestEscapeSchedulingOthers: the CPUs and priority of a process outside
// the run cannot be changed; the command's own can.
func TestEscapeSchedulingOthers(t *testing.T) {
	requireIsolation(t)
	probe := buildProbe(t)
	outsider := exec.Command("sleep", "60")
	if err := outsider.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { outsider.Process.Kill(); outsider.Wait() }()
	pid := strconv.Itoa(outsider.Process.Pid)
	if out, err := exec.Command(probe, "affinity", pid).CombinedOutput(); err != nil && os.Geteuid() == 0 {
		t.Fatalf("control: affinity of %s outside the sandbox: %v\n%s", pid, err, out)
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, probe := c.fixture(t, probe)
			for _, prof := range restricted {
				out, code := f.sandboxed(t, prof, probe, "affinity", pid)
				expectProbe(t, out, code, false)
				out, code = f.sandboxed(t, prof, probe, "affinity", "0")
				expectProbe(t, out, code, true)
				out, code = f.sandboxed(t, prof, "sh", "-c", "sleep 30 & taskset -p 1 $! >/dev/null && kill $! && echo ok")
				if code != 0 || !strings.Contains(out, "ok") {
					t.Errorf("%s: own child's CPUs: exit %d:\n%s", prof, code, out)
				}
			}
		})
	}
}

// TestEscapeInheritedStdin: a protected file the caller passes on stdin
// cannot be reopened for writing through /proc/self/fd/0, and a hidden one
// is refused; a workspace file still can be.
func TestEscapeInheritedStdin(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			config := filepath.Join(f.ws, ".git", "config")
			before := readFile(t, config)
			out, code := f.sandboxedStdin(t, config, "workspace-write", "sh", "-c", "echo pwned > /proc/self/fd/0")
			if got := readFile(t, config); got != before || code == 0 {
				t.Errorf(".git/config on stdin: exit %d, content now %q:\n%s", code, got, out)
			}
			out, code = f.sandboxedStdin(t, f.secret, "workspace-write", "cat")
			if code != 125 || strings.Contains(out, "SECRET") || !strings.Contains(out, "pass its content through a pipe") {
				t.Errorf("hidden file on stdin: want exit 125 and a hint, got %d:\n%s", code, out)
			}
			own := filepath.Join(f.ws, "input.txt")
			writeAs(t, f, own, "data\n")
			out, code = f.sandboxedStdin(t, own, "workspace-write", "sh", "-c", "cat && echo more >> /proc/self/fd/0")
			if code != 0 || !strings.Contains(out, "data") || readFile(t, own) != "data\nmore\n" {
				t.Errorf("control: a workspace file on stdin: exit %d, content %q:\n%s", code, readFile(t, own), out)
			}
		})
	}
}

// TestSandboxPtys: the command has ptys of its own, and none of the
// caller's.
func TestSandboxPtys(t *testing.T) {
	requireIsolation(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			for _, prof := range restricted {
				out, code := f.sandboxed(t, prof, "python3", "-c",
					"import os, pty; m, s = pty.openpty(); os.write(s, b'x'); print('pty', os.ttyname(s), os.read(m, 1))")
				if code != 0 || !strings.Contains(out, "pty /dev/pts/0 b'x'") {
					t.Errorf("%s: pty.openpty: exit %d:\n%s", prof, code, out)
				}
				out, code = f.sandboxed(t, prof, "script", "-qec", "echo in-a-pty", "/dev/null")
				if code != 0 || !strings.Contains(out, "in-a-pty") {
					t.Errorf("%s: script -qec: exit %d:\n%s", prof, code, out)
				}
				out, code = f.sandboxed(t, prof, "sh", "-c", "ls /dev/pts | tr '\\n' ' '")
				if code != 0 || strings.TrimSpace(out) != "ptmx" {
					t.Errorf("%s: /dev/pts holds the caller's terminals: %q", prof, out)
				}
			}
		})
	}
}

// sandboxedStdin is sandboxed with stdin opened read-only from path.
func (f fixture) sandboxedStdin(t *testing.T, path, profile string, argv ...string) (string, int) {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	bin := gatedexecBin
	if f.bin != "" {
		bin = f.bin
	}
	cmd := exec.Command(bin, append([]string{"sandbox", "-p", profile, "-C", f.ws, "-w", f.ws, "--"}, argv...)...)
	cmd.Env = append(os.Environ(), "HOME="+f.home)
	if f.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: f.cred}
	}
	cmd.Stdin = in
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}
