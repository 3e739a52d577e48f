package test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	cmd := f.command(append([]string{"sandbox", "-p", profile, "-C", f.ws, "-w", f.ws, "--"}, argv...)...)
	cmd.Stdin = in
	out, err := cmd.CombinedOutput()
	return string(out), exitOf(t, err)
}

// TestEscapeHostSockets: the host's daemons listening on unix sockets (a
// pathname outside the writable set, one in the host's /tmp, an abstract
// name) are out of reach of a restricted command unless its profile lists
// them, and the command's /tmp is its own.
func TestEscapeHostSockets(t *testing.T) {
	requireIsolation(t)
	probe := buildProbe(t)
	runDir, err := os.MkdirTemp("/var/tmp", "gatedexec-run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(runDir)
	os.Chmod(runDir, 0o755)
	tmpDir, err := os.MkdirTemp("/tmp", "gatedexec-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmpDir)
	os.Chmod(tmpDir, 0o755)
	daemon := filepath.Join(runDir, "daemon.sock")
	tmux := filepath.Join(tmpDir, "default")
	abstract := "@gatedexec-test-" + strconv.Itoa(os.Getpid())
	for _, addr := range []string{daemon, tmux, abstract} {
		ln, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go acceptAll(ln, nil)
		if addr[0] == '/' {
			os.Chmod(addr, 0o777)
		}
	}
	hostFile := filepath.Join(tmpDir, "note")
	mustWrite(t, hostFile, "host\n")
	os.Chmod(hostFile, 0o644)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, probe := c.fixture(t, probe)
			for _, prof := range restricted {
				for _, addr := range []string{daemon, tmux, abstract} {
					out, code := f.sandboxed(t, prof, probe, "unix", addr)
					t.Run(prof+"/"+addr, func(t *testing.T) { expectProbe(t, out, code, false) })
				}
				out, code := f.sandboxed(t, prof, probe, "read", hostFile)
				t.Run(prof+"/host-tmp-file", func(t *testing.T) { expectProbe(t, out, code, false) })
				listed := writeProfile(t, f, prof+"-listed.toml",
					"extends = \""+prof+"\"\n[network]\nunix_sockets = [\""+daemon+"\", \""+tmux+"\"]\n")
				for _, addr := range []string{daemon, tmux} {
					out, code := f.sandboxed(t, listed, probe, "unix", addr)
					t.Run(prof+"/listed/"+addr, func(t *testing.T) { expectProbe(t, out, code, true) })
				}
			}
			// Positive controls: full-access reaches them all, and a
			// restricted command's own sockets and /tmp work.
			for _, addr := range []string{daemon, tmux, abstract} {
				out, code := f.sandboxed(t, "full-access", probe, "unix", addr)
				t.Run("full-access/"+addr, func(t *testing.T) { expectProbe(t, out, code, true) })
			}
			out, code := f.sandboxed(t, "workspace-write", "python3", "-c", `
import socket, os
s = socket.socket(socket.AF_UNIX); s.bind("/tmp/own.sock"); s.listen()
c = socket.socket(socket.AF_UNIX); c.connect("/tmp/own.sock")
a = socket.socket(socket.AF_UNIX); a.bind("\0own"); a.listen()
b = socket.socket(socket.AF_UNIX); b.connect("\0own")
open("/tmp/mine", "w").write("x"); print("own ok")`)
			if code != 0 || !strings.Contains(out, "own ok") {
				t.Errorf("own sockets and /tmp: exit %d:\n%s", code, out)
			}
			if _, err := os.Stat("/tmp/mine"); err == nil {
				os.Remove("/tmp/mine")
				t.Errorf("the command's /tmp is the host's")
			}
			t.Run("abstract-bind", func(t *testing.T) {
				// A name the command binds is not in the host's abstract
				// namespace: no host client can be made to talk to it.
				name := "gatedexec-squat-" + c.name + strconv.Itoa(os.Getpid())
				cmd := f.command("sandbox", "-p", "workspace-write", "-C", f.ws, "-w", f.ws, "--", "python3", "-c",
					"import socket, time\ns = socket.socket(socket.AF_UNIX); s.bind('\\0"+name+"'); s.listen(); print('bound', flush=True); time.sleep(3)")
				stdout, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer func() { cmd.Process.Kill(); cmd.Wait() }()
				buf := make([]byte, 16)
				if n, _ := stdout.Read(buf); !strings.Contains(string(buf[:n]), "bound") {
					t.Fatalf("the command did not bind: %q", buf[:n])
				}
				if c, err := net.Dial("unix", "@"+name); err == nil {
					c.Close()
					t.Errorf("the host reached @%s, which the command bound", name)
				}
			})
		})
	}
}

// TestLimitsByDefault: restricted profiles bound processes and file size
// out of the box, and a profile's own limits hold, for root (whom the
// kernel exempts from RLIMIT_NPROC: a pids cgroup) and others.
func TestLimitsByDefault(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			for _, prof := range restricted {
				out, code := f.sandboxed(t, prof, "bash", "-c", "ulimit -u; ulimit -f")
				if code != 0 || out != "8192\n16777216\n" {
					t.Errorf("%s: default limits: exit %d:\n%s", prof, code, out)
				}
			}
			lim := writeProfile(t, f, "lim.toml", "extends = \"workspace-write\"\n[limits]\nnproc = 40\nfsize = \"1M\"\n")
			out, code := f.sandboxed(t, lim, "bash", "-c", "for i in $(seq 80); do sleep 2 & done; wait")
			if !strings.Contains(out, "fork") {
				t.Errorf("80 processes under nproc = 40: exit %d, no fork failed:\n%s", code, out)
			}
			out, code = f.sandboxed(t, lim, "sh", "-c", "head -c 2097152 /dev/zero > big")
			if st, err := os.Stat(filepath.Join(f.ws, "big")); code == 0 || err != nil || st.Size() > 1<<20 {
				t.Errorf("a 2 MiB file under fsize = 1M: exit %d:\n%s", code, out)
			}
			// Control: under the limit it works.
			out, code = f.sandboxed(t, lim, "bash", "-c", "for i in $(seq 10); do sleep 0.1 & done; wait; head -c 1000 /dev/zero > small && echo ok")
			if code != 0 || !strings.Contains(out, "ok") {
				t.Errorf("control under the limits: exit %d:\n%s", code, out)
			}
		})
	}
}

// TestEscapeSymlinkedGit: a .git that is a link to the real git dir can be
// neither replaced by a directory of the command's nor moved aside, and
// git still works through it.
func TestEscapeSymlinkedGit(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			real := filepath.Join(f.ws, ".git-real")
			if err := os.Rename(filepath.Join(f.ws, ".git"), real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, filepath.Join(f.ws, ".git")); err != nil {
				t.Fatal(err)
			}
			if f.cred != nil {
				os.Lchown(filepath.Join(f.ws, ".git"), int(f.cred.Uid), int(f.cred.Gid))
			}
			for _, attack := range []string{
				"rm .git && mkdir -p .git/hooks && echo pwned > .git/hooks/pre-commit",
				"mv .git .git-old && mkdir -p .git/hooks && echo pwned > .git/hooks/pre-commit",
				"ln -sfn /var/tmp .git",
			} {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", attack)
				if fi, err := os.Lstat(filepath.Join(f.ws, ".git")); err != nil || fi.Mode()&os.ModeSymlink == 0 || code == 0 {
					t.Errorf("%q: exit %d, .git now %v:\n%s", attack, code, fi.Mode(), out)
				}
				if target, _ := os.Readlink(filepath.Join(f.ws, ".git")); target != real {
					t.Errorf("%q: .git points at %q", attack, target)
				}
			}
			out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "echo pwned > .git/hooks/pre-commit")
			if _, err := os.Stat(filepath.Join(real, "hooks", "pre-commit")); err == nil || code == 0 {
				t.Errorf("a hook was written through the link: exit %d:\n%s", code, out)
			}
			out, code = f.sandboxed(t, "workspace-write", "sh", "-c", "git status --short >/dev/null && echo x > a && git add a && echo ok")
			if code != 0 || !strings.Contains(out, "ok") {
				t.Errorf("control: git through the link: exit %d:\n%s", code, out)
			}
		})
	}
}

// gatedexecAs runs gatedexec with args (f.command) and returns combined
// output and exit status.
func (f fixture) gatedexecAs(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := f.command(args...).CombinedOutput()
	return string(out), exitOf(t, err)
}

// TestEscapeOwnInputs: the files gatedexec reads for a run (a -p profile
// file, a --config file) are read-only to the command even inside its
// workspace, and the result file is written where it was asked for, not
// through a link the command put in place of its directory.
func TestEscapeOwnInputs(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			prof := filepath.Join(f.ws, "p.toml")
			writeAs(t, f, prof, "extends = \"workspace-write\"\n")
			cfg := filepath.Join(f.ws, "gx.toml")
			writeAs(t, f, cfg, "approval_policy = \"on-request\"\n")
			for _, args := range [][]string{
				{"sandbox", "-p", prof, "--", "sh", "-c", "echo '[network]' >> p.toml; echo 'mode = \"on\"' >> p.toml"},
				{"run", "-p", prof, "--", "sh", "-c", "printf 'extends = \"full-access\"\\n' > p.toml"},
				{"run", "--config", cfg, "--", "sh", "-c", "echo 'profile = \"full-access\"' >> gx.toml"},
			} {
				out, code := f.gatedexecAs(t, args...)
				if readFile(t, prof) != "extends = \"workspace-write\"\n" || readFile(t, cfg) != "approval_policy = \"on-request\"\n" || code == 0 {
					t.Errorf("%q: exit %d, p.toml %q, gx.toml %q:\n%s", args, code, readFile(t, prof), readFile(t, cfg), out)
				}
			}
			out, code := f.gatedexecAs(t, "sandbox", "-p", prof, "--", "sh", "-c", "echo x > other.txt && echo ok")
			if code != 0 || !strings.Contains(out, "ok") {
				t.Errorf("control: the workspace beside them is writable: exit %d:\n%s", code, out)
			}

			outDir := filepath.Join(f.ws, "out")
			mkdirAs(t, f, outDir)
			victim := filepath.Join(f.outside, "victimdir")
			mkdirAs(t, f, victim)
			if f.cred != nil {
				os.Chown(f.outside, int(f.cred.Uid), int(f.cred.Gid))
			}
			out, code = f.gatedexecAs(t, "sandbox", "--result-file", filepath.Join(outDir, "r.json"), "--",
				"sh", "-c", "mv out out-moved && ln -s "+victim+" out")
			if ents, _ := os.ReadDir(victim); len(ents) != 0 || code != 0 {
				t.Errorf("the result was written through the link: exit %d, %v:\n%s", code, ents, out)
			}
			if b := readFile(t, filepath.Join(f.ws, "out-moved", "r.json")); !strings.Contains(b, `"exit_code"`) {
				t.Errorf("the result is not in the directory that was asked for: %q", b)
			}
		})
	}
}

// TestMemoryLimit: as root, a run's memory is bounded by a cgroup of its
// own; under the limit the command works.
func TestMemoryLimit(t *testing.T) {
	requireIsolation(t)
	if os.Geteuid() != 0 {
		t.Skip("memory cgroups are made as root only")
	}
	f := newFixture(t)
	prof := writeProfile(t, f, "mem.toml", "extends = \"workspace-write\"\n[limits]\nmemory = \"64M\"\n")
	out, code := f.sandboxed(t, prof, "python3", "-c", "b = bytearray(256 << 20); b[::4096] = b'x' * len(b[::4096]); print('allocated')")
	if code == 0 || strings.Contains(out, "allocated") {
		t.Errorf("256 MiB under memory = 64M: exit %d:\n%s", code, out)
	}
	out, code = f.sandboxed(t, prof, "python3", "-c", "b = bytearray(8 << 20); print('small ok')")
	if code != 0 || !strings.Contains(out, "small ok") {
		t.Errorf("control: 8 MiB under memory = 64M: exit %d:\n%s", code, out)
	}
}
