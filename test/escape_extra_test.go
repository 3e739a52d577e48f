//go:build linux

package test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Escapes beyond the list in DESIGN.md §9, found by red-teaming the
// backend. Each attack runs beside a positive control (full-access, or
// outside the sandbox) that shows the same action works where allowed, so
// a refusal means the sandbox refused it.

// buildExtraProbe compiles testdata/extraprobe once per test binary.
func buildExtraProbe(t *testing.T) string {
	t.Helper()
	return buildTestdata(t, "extraprobe")
}

// userCase is one user an escape test runs as: setup returns its fixture
// and the copy of the probe it may run.
type userCase struct {
	name  string
	setup func(t *testing.T) (fixture, string)
}

// callerAndNobody are the users of the tests below: the caller, and
// nobody with a copy of probe it can run.
func callerAndNobody(probe string) []userCase {
	return []userCase{
		{"caller", func(t *testing.T) (fixture, string) { return newFixture(t), probe }},
		{"unprivileged", func(t *testing.T) (fixture, string) { return unprivileged(t, probe) }},
	}
}

func openFile(t *testing.T, path string, flag int) *os.File {
	t.Helper()
	fh, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	return fh
}

// TestEscapeInheritedFDs: a descriptor the caller left open is access
// granted outside the sandbox. Landlock checks paths when they are
// opened, not descriptors already open, and openat relative to a
// directory descriptor opened on the host's mounts goes under the
// read-only and empty mounts of protect and hide.
func TestEscapeInheritedFDs(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.LandlockABI > 0, "landlock")
	requireFeature(t, h.Host.MountNS && (h.Host.Root || h.Host.UserNS), "mount namespaces")
	xprobe := buildExtraProbe(t)
	users := callerAndNobody(xprobe)
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			f, probe := u.setup(t)
			victim := filepath.Join(f.outside, "victim")
			config := filepath.Join(f.ws, ".git", "config")
			before := readFile(t, config)
			for _, prof := range allProfiles {
				allowed := prof == "full-access"
				t.Run(prof, func(t *testing.T) {
					t.Run("hide-dirfd", func(t *testing.T) {
						ssh := openFile(t, filepath.Dir(f.secret), os.O_RDONLY)
						out, code := f.sandboxedFiles(t, []*os.File{ssh}, prof, probe, "fd-read", "9", filepath.Base(f.secret))
						expectProbe(t, out, code, allowed)
						if leaked := strings.Contains(out, "SECRET"); leaked != allowed {
							t.Errorf("secret read=%v, want %v:\n%s", leaked, allowed, out)
						}
					})
					t.Run("protect-dirfd", func(t *testing.T) {
						git := openFile(t, filepath.Join(f.ws, ".git"), os.O_RDONLY)
						out, code := f.sandboxedFiles(t, []*os.File{git}, prof, probe, "fd-write", "9", "config")
						expectProbe(t, out, code, allowed)
						if changed := readFile(t, config) != before; changed != allowed {
							t.Errorf(".git/config changed=%v, want %v:\n%s", changed, allowed, out)
						}
						mustWrite(t, config, before)
					})
					t.Run("outside-wronly", func(t *testing.T) {
						mustWrite(t, victim, "original\n")
						w := openFile(t, victim, os.O_WRONLY|os.O_APPEND)
						out, code := f.sandboxedFiles(t, []*os.File{w}, prof, "sh", "-c", "echo pwned >&9")
						if changed := readFile(t, victim) != "original\n"; changed != allowed {
							t.Errorf("victim changed=%v, want %v (exit %d):\n%s", changed, allowed, code, out)
						}
					})
				})
			}
		})
	}
}

// TestEscapeMountFDs: open_tree_attr (Linux 6.15) clones a mount like
// open_tree, and a clone of "/" made without AT_RECURSIVE has none of the
// protect and hide mounts; open_by_handle_at reopens a file on any mount
// of its filesystem, the writable one under a read-only bind included.
// Both need CAP_SYS_ADMIN or CAP_DAC_READ_SEARCH: root keeps them.
func TestEscapeMountFDs(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	requireFeature(t, h.Host.MountNS && (h.Host.Root || h.Host.UserNS), "mount namespaces")
	probe := buildExtraProbe(t)
	f := newFixture(t)
	config := filepath.Join(f.ws, ".git", "config")
	before := readFile(t, config)
	for _, prof := range allProfiles {
		// The positive controls need root's capabilities.
		allowed := prof == "full-access"
		if allowed && !h.Host.Root {
			continue
		}
		t.Run(prof, func(t *testing.T) {
			t.Run("open-tree-hide", func(t *testing.T) {
				out, code := f.sandboxed(t, prof, probe, "open-tree-read", f.secret)
				expectProbe(t, out, code, allowed)
				if leaked := strings.Contains(out, "SECRET"); leaked != allowed {
					t.Errorf("secret read=%v, want %v:\n%s", leaked, allowed, out)
				}
			})
			for _, c := range []struct{ name, op string }{
				{"open-tree-protect", "open-tree-write"},
				{"handle-protect", "handle-write"},
			} {
				t.Run(c.name, func(t *testing.T) {
					out, code := f.sandboxed(t, prof, probe, c.op, config, f.ws)
					if prof != "read-only" {
						expectProbe(t, out, code, allowed)
					}
					if changed := readFile(t, config) != before; changed != allowed {
						t.Errorf(".git/config changed=%v, want %v:\n%s", changed, allowed, out)
					}
					mustWrite(t, config, before)
				})
			}
		})
	}
}

// TestEscapeRootAdmin: a command run as root keeps root's capabilities,
// so the calls that change the whole host must be filtered, and device
// nodes must not be creatable: a node made in a writable directory opens
// a device Landlock refuses at its /dev path. Every probe is harmless
// when it gets through (the hostname it already has, a reboot with bad
// magic, swapon and acct of a missing file, the kernel log's size, a node
// for /dev/null); syslog(2) would clear the kernel log or silence the
// console.
func TestEscapeRootAdmin(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	requireFeature(t, h.Host.LandlockABI > 0, "landlock")
	probe := buildExtraProbe(t)
	f := newFixture(t)
	ops := [][]string{
		{"sethostname"}, {"setdomainname"}, {"settimeofday"}, {"reboot"}, {"swapon"}, {"acct"}, {"syslog"},
		{"mknod-write", filepath.Join(f.ws, "null")},
	}
	for _, prof := range allProfiles {
		allowed := prof == "full-access"
		if allowed && !h.Host.Root {
			continue // without root the controls fail for want of privilege
		}
		t.Run(prof, func(t *testing.T) {
			for _, op := range ops {
				t.Run(op[0], func(t *testing.T) {
					out, code := f.sandboxed(t, prof, append([]string{probe}, op...)...)
					expectProbe(t, out, code, allowed)
				})
			}
		})
	}
}

// TestEscapeCallerTTY: the command's stdin may be the caller's terminal,
// the controlling terminal of the caller's session. setsid keeps the
// command out of that session, but root may still take the terminal
// from it (TIOCSCTTY with force), hang it up, which sends SIGHUP to the
// session (TIOCVHANGUP, or vhangup once it is the command's own), or
// redirect the host's console to it (TIOCCONS). A terminal stdin is
// replaced by a pty of the command's own by default, which keeps all of
// this from the caller's; the profiles here opt out of it (pty = false), so
// that seccomp is what is tested, with full-access as the control.
func TestEscapeCallerTTY(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	probe := buildExtraProbe(t)
	f := newFixture(t)
	for _, prof := range allProfiles {
		allowed := prof == "full-access"
		if allowed && !h.Host.Root {
			continue // the controls need CAP_SYS_ADMIN and CAP_SYS_TTY_CONFIG
		}
		t.Run(prof, func(t *testing.T) {
			for _, op := range []string{"tiocvhangup", "tiocsctty-force", "vhangup", "tioccons"} {
				t.Run(op, func(t *testing.T) {
					if op == "tioccons" {
						t.Cleanup(func() { endConsoleRedirect(t) })
					}
					ptm, tty, err := pty.Open()
					if err != nil {
						t.Fatal(err)
					}
					defer ptm.Close()
					defer tty.Close()
					// The caller's session: a process whose controlling
					// terminal is tty.
					victim := exec.Command("sleep", "60")
					victim.Stdin = tty
					victim.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
					if err := victim.Start(); err != nil {
						t.Fatal(err)
					}
					noPty := filepath.Join(t.TempDir(), prof+"-no-pty.toml")
					mustWrite(t, noPty, "extends = \""+prof+"\"\n[process]\npty = false\n")
					cmd := exec.Command(gatedexecBin, "sandbox", "-p", noPty, "-C", f.ws, "-w", f.ws, "--", probe, op)
					var out bytes.Buffer
					cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &out
					err = cmd.Run()
					code := 0
					if ee, ok := err.(*exec.ExitError); ok {
						code = ee.ExitCode()
					} else if err != nil {
						t.Fatal(err)
					}
					expectProbe(t, out.String(), code, allowed)
					// The terminal still belongs to the caller's session...
					sid, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGSID)
					if op == "tiocsctty-force" && (err == nil && sid == victim.Process.Pid) == allowed {
						t.Errorf("terminal session %d (%v), victim %d: taken=%v, want %v", sid, err, victim.Process.Pid, !allowed, allowed)
					}
					// ...which got no SIGHUP: it dies of the SIGKILL sent now.
					victim.Process.Kill()
					victim.Wait()
					hup := victim.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGHUP
					if op == "tiocvhangup" && hup != allowed {
						t.Errorf("caller's session hung up=%v, want %v", hup, allowed)
					}
				})
			}
		})
	}
}

// endConsoleRedirect undoes a TIOCCONS that got through: TIOCCONS on the
// console itself ends any redirection, and does nothing without one.
func endConsoleRedirect(t *testing.T) {
	fd, err := unix.Open("/dev/console", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return // not root: no TIOCCONS got through either
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetInt(fd, unix.TIOCCONS, 0); err != nil {
		t.Logf("ending a console redirection: %v", err)
	}
}

// TestEscapeFanotify: fanotify with CAP_SYS_ADMIN watches a whole
// filesystem and hands the watcher a descriptor for every file opened
// there, by anyone: opened on the host's mounts, under no hide mount.
func TestEscapeFanotify(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	requireFeature(t, h.Host.MountNS && (h.Host.Root || h.Host.UserNS), "mount namespaces")
	probe := buildExtraProbe(t)
	f := newFixture(t)
	for _, prof := range allProfiles {
		allowed := prof == "full-access"
		if allowed && !h.Host.Root {
			continue // the control needs CAP_SYS_ADMIN
		}
		t.Run(prof, func(t *testing.T) {
			cmd := exec.Command(gatedexecBin, "sandbox", "-p", prof, "-C", f.ws, "-w", f.ws, "--", probe, "fanotify", f.home)
			cmd.Env = append(os.Environ(), "HOME="+f.home)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stdout)
			out, _ := r.ReadString('\n')
			if out == "ready\n" {
				// The host opens the secret until the probe has read it.
				rest := make(chan string)
				go func() { b, _ := io.ReadAll(r); rest <- string(b) }()
				deadline := time.NewTimer(acceptDeadline)
				defer deadline.Stop()
			wait:
				for {
					select {
					case s := <-rest:
						out += s
						break wait
					case <-deadline.C:
						cmd.Process.Kill()
						t.Fatalf("the probe saw no open of the secret within %v", acceptDeadline)
					case <-time.After(10 * time.Millisecond):
						readFile(t, f.secret)
					}
				}
			} else {
				rest, _ := io.ReadAll(r)
				out += string(rest)
			}
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			out += stderr.String()
			expectProbe(t, out, code, allowed)
			if leaked := strings.Contains(out, "SECRET"); leaked != allowed {
				t.Errorf("secret read=%v, want %v:\n%s", leaked, allowed, out)
			}
		})
	}
}

// TestEscapeMetadata: Landlock has no right for a file's mode, owner or
// times, so without more a command may chmod, chown or touch any file
// its user could outside the writable set (root: chmod u+s /bin/sh).
func TestEscapeMetadata(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.LandlockABI > 0, "landlock")
	requireFeature(t, h.Host.MountNS && (h.Host.Root || h.Host.UserNS), "mount namespaces")
	for _, u := range callerAndNobody(buildProbe(t)) {
		t.Run(u.name, func(t *testing.T) {
			f, _ := u.setup(t)
			victim := filepath.Join(f.outside, "victim")
			stat := func() string {
				st, err := os.Lstat(victim)
				if err != nil {
					t.Fatal(err)
				}
				sys := st.Sys().(*syscall.Stat_t)
				return fmt.Sprintf("%v uid %d mtime %d", st.Mode(), sys.Uid, sys.Mtim.Sec)
			}
			before := stat()
			st, err := os.Stat(victim)
			if err != nil {
				t.Fatal(err)
			}
			mtime := st.ModTime()
			for _, prof := range allProfiles {
				allowed := prof == "full-access"
				t.Run(prof, func(t *testing.T) {
					for _, c := range []struct{ name, script string }{
						{"chmod", "chmod 4777 " + victim},
						{"touch", "touch -d 2001-01-01 " + victim},
						// To its own uid: possible for any owner, a change of nothing but ctime.
						{"chown", "chown $(id -u) " + victim + " && chmod 4755 " + victim},
					} {
						t.Run(c.name, func(t *testing.T) {
							out, code := f.sandboxed(t, prof, "sh", "-c", c.script)
							if changed := stat() != before; changed != allowed {
								t.Errorf("%s: victim changed=%v, want %v (exit %d):\n%s", stat(), changed, allowed, code, out)
							}
							os.Chmod(victim, st.Mode())
							os.Chtimes(victim, mtime, mtime)
						})
					}
					if prof == "workspace-write" {
						t.Run("control-chmod-workspace", func(t *testing.T) {
							out, code := f.sandboxed(t, prof, "sh", "-c", "echo x > run.sh && chmod +x run.sh && touch -d 2001-01-01 run.sh")
							if code != 0 {
								t.Errorf("chmod and touch in the workspace failed (exit %d):\n%s", code, out)
							}
						})
					}
				})
			}
		})
	}
}

// TestEscapeSysVIPC: System V IPC objects are not files, so Landlock does
// not see them: a command in the caller's IPC namespace attaches the
// shared memory of processes outside (their permissions allowing) and
// writes their memory.
func TestEscapeSysVIPC(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.MountNS && (h.Host.Root || h.Host.UserNS), "mount namespaces")
	xprobe := buildExtraProbe(t)
	users := callerAndNobody(xprobe)
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			f, probe := u.setup(t)
			for _, prof := range allProfiles {
				allowed := prof == "full-access"
				t.Run(prof, func(t *testing.T) {
					// A segment of the test's own, that the probe's user may
					// write (0666: the unprivileged probe is another user).
					id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o666)
					if err != nil {
						t.Fatal(err)
					}
					defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
					mem, err := unix.SysvShmAttach(id, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					defer unix.SysvShmDetach(mem)
					copy(mem, "original")
					out, code := f.sandboxed(t, prof, probe, "sysv-shm-id", strconv.Itoa(id))
					expectProbe(t, out, code, allowed)
					if changed := string(mem[:8]) != "original"; changed != allowed {
						t.Errorf("segment changed=%v (%q), want %v:\n%s", changed, mem[:8], allowed, out)
					}
				})
			}
		})
	}
}

// TestEscapeOtherProcesses: prlimit(2), setpriority(2) and ioprio_set(2)
// reach any process of the same user (root: any process), and
// Landlock's scoping covers signals, not these: a CPU limit of one
// second kills like a signal. The probes only lower a victim's soft core
// size limit, nice it by one and move it to the idle I/O class.
func TestEscapeOtherProcesses(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	xprobe := buildExtraProbe(t)
	users := callerAndNobody(xprobe)
	ops := []struct {
		op string
		// state is what the probe would change in the victim.
		state func(t *testing.T, pid int) string
	}{
		{"prlimit", softCoreLimit},
		{"renice", func(t *testing.T, pid int) string { return procStatField(t, pid, 19) }},
		{"ioprio", ioPriority},
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			f, probe := u.setup(t)
			for _, prof := range allProfiles {
				allowed := prof == "full-access"
				t.Run(prof, func(t *testing.T) {
					for _, o := range ops {
						t.Run(o.op, func(t *testing.T) {
							victim := startWithCoreLimit(t, f.cred, 4096)
							defer func() { victim.Process.Kill(); victim.Wait() }()
							pid := victim.Process.Pid
							before := o.state(t, pid)
							out, code := f.sandboxed(t, prof, probe, o.op, strconv.Itoa(pid))
							expectProbe(t, out, code, allowed)
							if after := o.state(t, pid); (after != before) != allowed {
								t.Errorf("victim %s -> %s, want changed=%v:\n%s", before, after, allowed, out)
							}
							// Control: the command's own stay its to change.
							out, code = f.sandboxed(t, prof, probe, o.op, "0")
							expectProbe(t, out, code, true)
						})
					}
				})
			}
		})
	}
}

// procStatField returns field n (1-based, as proc(5) counts) of
// /proc/pid/stat.
func procStatField(t *testing.T, pid, n int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name, field 2, may hold spaces: count after it.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	fields := strings.Fields(rest)
	if n-3 >= len(fields) {
		t.Fatalf("/proc/%d/stat has no field %d: %s", pid, n, b)
	}
	return fields[n-3]
}

// ioPriority is ioprio_get(2) of pid.
func ioPriority(t *testing.T, pid int) string {
	t.Helper()
	const whoProcess = 1
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, whoProcess, uintptr(pid), 0)
	if e != 0 {
		t.Fatalf("ioprio_get %d: %v", pid, e)
	}
	return strconv.Itoa(int(r))
}

// startWithCoreLimit starts a sleeping victim, as cred's user when set,
// with a soft core size limit of soft bytes: it inherits the limit from
// the test process, which root's want of CAP_SYS_RESOURCE may keep from
// setting another user's.
func startWithCoreLimit(t *testing.T, cred *syscall.Credential, soft uint64) *exec.Cmd {
	t.Helper()
	var mine unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_CORE, &mine); err != nil {
		t.Fatal(err)
	}
	if mine.Max < soft {
		t.Fatalf("hard core limit %d is below %d", mine.Max, soft)
	}
	lim := unix.Rlimit{Cur: soft, Max: mine.Max}
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &lim); err != nil {
		t.Fatal(err)
	}
	defer unix.Setrlimit(unix.RLIMIT_CORE, &mine)
	victim := exec.Command("sleep", "60")
	if cred != nil {
		victim.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	return victim
}

// softCoreLimit reads pid's soft core size limit from /proc.
func softCoreLimit(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max core file size"); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				return fields[0]
			}
		}
	}
	t.Fatalf("no core limit in /proc/%d/limits:\n%s", pid, b)
	return ""
}
