package test

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// hostReport is the part of `gatedexec doctor --json` the suite uses to
// decide skips.
type hostReport struct {
	Host struct {
		LandlockABI int  `json:"landlock_abi"`
		Seccomp     bool `json:"seccomp"`
		MountNS     bool `json:"mount_ns"`
		UserNS      bool `json:"user_ns"`
		PIDNS       bool `json:"pid_ns"`
		Root        bool `json:"root"`
	} `json:"host"`
}

func doctor(t *testing.T) hostReport {
	t.Helper()
	out, err := exec.Command(gatedexecBin, "doctor", "--json").Output()
	if err != nil {
		t.Fatalf("gatedexec doctor --json: %v", err)
	}
	var r hostReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("doctor output: %v\n%s", err, out)
	}
	return r
}

// requireFeature skips when the host lacks a feature, but only outside CI.
func requireFeature(t *testing.T, have bool, what string) {
	t.Helper()
	if have {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("host lacks %s and CI is set: the escape suite may not skip", what)
	}
	t.Skipf("host lacks %s", what)
}

// buildProbe compiles testdata/probe once per test binary.
func buildProbe(t *testing.T) string {
	t.Helper()
	return buildTestdata(t, "probe")
}

// buildTestdata compiles the program testdata/name once per test binary,
// beside gatedexec.
func buildTestdata(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(binDir, name)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/"+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	return bin
}

// fixture is a git workspace with an "outside" directory beside it that no
// profile may write, and a fake home with a secret to hide.
type fixture struct {
	ws, outside, home, secret string
	// bin and cred, when set, run gatedexec from bin as another user.
	bin  string
	cred *syscall.Credential
	// env is added to gatedexec's environment.
	env []string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	// Not under /tmp: every profile may write /tmp, so "outside" must not be there.
	base, err := os.MkdirTemp("/var/tmp", "gatedexec-escape-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	f := fixture{ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), home: filepath.Join(base, "home")}
	for _, d := range []string{f.ws, f.outside, filepath.Join(f.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.secret = filepath.Join(f.home, ".ssh", "id_ed25519")
	mustWrite(t, f.secret, "SECRET KEY\n")
	mustWrite(t, filepath.Join(f.outside, "victim"), "original\n")
	git(t, f.ws, "init", "-q")
	mustWrite(t, filepath.Join(f.ws, "README"), "hello\n")
	return f
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// command returns gatedexec with args as the fixture's user, in its
// workspace, with its home, configuration and state there and the
// fixture's env added.
func (f fixture) command(args ...string) *exec.Cmd {
	bin := gatedexecBin
	if f.bin != "" {
		bin = f.bin
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = f.ws
	cmd.Env = append(os.Environ(), "HOME="+f.home, "XDG_CONFIG_HOME="+filepath.Join(f.home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(f.home, ".state"))
	cmd.Env = append(cmd.Env, f.env...)
	if f.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: f.cred}
	}
	return cmd
}

// exitOf returns the exit status of a finished command; an error that is
// not an exit status fails the test.
func exitOf(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running gatedexec: %v", err)
	}
	return 0
}

// sandboxed runs argv under profile in the fixture and returns combined
// output and exit status.
func (f fixture) sandboxed(t *testing.T, profile string, argv ...string) (string, int) {
	t.Helper()
	return f.sandboxedFiles(t, nil, profile, argv...)
}

// inheritedFD is the descriptor number the caller's first extra file
// gets in gatedexec: well above the helper's own descriptors (3 to 5),
// which a leaked descriptor of the caller's would never be confused with.
const inheritedFD = 9

// sandboxedFiles is sandboxed with files open in gatedexec, the first as
// descriptor inheritedFD, the way a caller that does not mark its
// descriptors close-on-exec leaves them.
func (f fixture) sandboxedFiles(t *testing.T, files []*os.File, profile string, argv ...string) (string, int) {
	t.Helper()
	args := append([]string{"sandbox", "-p", profile, "-C", f.ws, "-w", f.ws, "--"}, argv...)
	bin := gatedexecBin
	if f.bin != "" {
		bin = f.bin
	}
	cmd := exec.Command(bin, args...)
	if f.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: f.cred}
	}
	cmd.Env = append(os.Environ(), "HOME="+f.home, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "XDG_CONFIG_HOME="+filepath.Join(f.home, ".config"))
	cmd.Env = append(cmd.Env, f.env...)
	if len(files) > 0 {
		// Nil entries are closed in gatedexec; they only move the files up.
		cmd.ExtraFiles = append(make([]*os.File, inheritedFD-3), files...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running gatedexec: %v", err)
	}
	return out.String(), code
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// expectProbe asserts that a probe was allowed (wantOK) or refused.
func expectProbe(t *testing.T, out string, code int, wantOK bool) {
	t.Helper()
	ok := code == 0 && strings.Contains(out, "ok")
	if ok != wantOK {
		t.Errorf("want allowed=%v, got exit %d:\n%s", wantOK, code, out)
	}
	if !wantOK && !strings.Contains(out, "denied:") {
		t.Errorf("refusal did not come from the probed call:\n%s", out)
	}
}

var restricted = []string{"read-only", "workspace-write"}
var allProfiles = []string{"read-only", "workspace-write", "full-access"}

func TestEscapeFilesystem(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.LandlockABI > 0, "landlock")
	probe := buildProbe(t)
	for _, prof := range allProfiles {
		t.Run(prof, func(t *testing.T) {
			f := newFixture(t)
			victim := filepath.Join(f.outside, "victim")
			denied := prof != "full-access"
			cases := []struct {
				name string
				argv []string
			}{
				{"direct", []string{probe, "write", victim}},
				{"symlink", []string{probe, "symlink-write", victim}},
				{"hardlink", []string{probe, "hardlink-write", victim}},
				{"proc-self-root", []string{probe, "write", "/proc/self/root" + victim}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					mustWrite(t, victim, "original\n")
					out, code := f.sandboxed(t, prof, c.argv...)
					if got := readFile(t, victim); (got == "original\n") != denied {
						t.Errorf("victim content %q after %s (exit %d):\n%s", got, c.name, code, out)
					}
				})
			}
			t.Run("rename-out", func(t *testing.T) {
				mustWrite(t, victim, "original\n")
				out, code := f.sandboxed(t, prof, "mv", victim, filepath.Join(f.ws, "stolen"))
				_, err := os.Stat(victim)
				if (err == nil) != denied {
					t.Errorf("victim exists=%v after mv (exit %d):\n%s", err == nil, code, out)
				}
			})
			t.Run("control-write-workspace", func(t *testing.T) {
				target := filepath.Join(f.ws, "new.txt")
				out, code := f.sandboxed(t, prof, probe, "write", target)
				expectProbe(t, out, code, prof != "read-only")
			})
			t.Run("control-read", func(t *testing.T) {
				out, code := f.sandboxed(t, prof, probe, "read", "/etc/hostname")
				expectProbe(t, out, code, true)
			})
		})
	}
}

func TestEscapeProtectAndHide(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.MountNS && (h.Host.Root || h.Host.UserNS), "mount namespaces")
	probe := buildProbe(t)
	for _, prof := range allProfiles {
		t.Run(prof, func(t *testing.T) {
			f := newFixture(t)
			hooks := filepath.Join(f.ws, ".git", "hooks")
			attacks := []struct {
				name string
				argv []string
				// escaped reports whether the attack got through.
				escaped func() bool
			}{
				{"hook-write", []string{probe, "write", filepath.Join(hooks, "pre-commit")},
					func() bool { _, err := os.Stat(filepath.Join(hooks, "pre-commit")); return err == nil }},
				{"config-write", []string{probe, "write", filepath.Join(f.ws, ".git", "config")},
					func() bool { return readFile(t, filepath.Join(f.ws, ".git", "config")) == "pwned\n" }},
				{"mv-git-aside", []string{"sh", "-c", "mv .git .git-old && mkdir -p .git/hooks && echo pwned > .git/hooks/post-commit"},
					func() bool {
						_, e1 := os.Stat(filepath.Join(f.ws, ".git-old"))
						_, e2 := os.Stat(filepath.Join(hooks, "post-commit"))
						return e1 == nil || e2 == nil
					}},
				{"mv-hooks-aside", []string{"sh", "-c", "mv .git/hooks .git/h2; mkdir .git/hooks; echo x > .git/hooks/pre-push"},
					func() bool { _, err := os.Stat(filepath.Join(hooks, "pre-push")); return err == nil }},
				{"create-missing-protect", []string{probe, "mkdirall", filepath.Join(f.ws, ".gatedexec", "rules")},
					func() bool { _, err := os.Stat(filepath.Join(f.ws, ".gatedexec", "rules")); return err == nil }},
			}
			for _, a := range attacks {
				t.Run(a.name, func(t *testing.T) {
					out, code := f.sandboxed(t, prof, a.argv...)
					if got, want := a.escaped(), prof == "full-access"; got != want {
						t.Errorf("escaped=%v, want %v (exit %d):\n%s", got, want, code, out)
					}
					if prof == "full-access" {
						os.RemoveAll(filepath.Join(f.ws, ".git-old"))
					}
				})
			}
			t.Run("hide", func(t *testing.T) {
				out, code := f.sandboxed(t, prof, probe, "read", f.secret)
				expectProbe(t, out, code, prof == "full-access")
				if strings.Contains(out, "SECRET") {
					t.Errorf("secret leaked:\n%s", out)
				}
			})
			if prof == "workspace-write" {
				t.Run("control-git-commit", func(t *testing.T) {
					out, code := f.sandboxed(t, prof, "sh", "-c", "echo more >> README && git add README && git commit -qm sandboxed && git log --oneline")
					if code != 0 || !strings.Contains(out, "sandboxed") {
						t.Errorf("git add/commit failed (exit %d):\n%s", code, out)
					}
				})
			}
		})
	}
}

func TestEscapeNetwork(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	probe := buildProbe(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan string, 16)
	go acceptAll(ln, accepted)
	sock := filepath.Join(t.TempDir(), "host.sock")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	go acceptAll(uln, nil)
	f := newFixture(t)
	for _, prof := range allProfiles {
		t.Run(prof, func(t *testing.T) {
			denied := prof != "full-access"
			for _, op := range []string{"udp", "raw"} {
				out, code := f.sandboxed(t, prof, probe, op)
				t.Run(op, func(t *testing.T) { expectProbe(t, out, code, !denied) })
			}
			t.Run("tcp", func(t *testing.T) {
				out, code := f.sandboxed(t, prof, probe, "tcp", ln.Addr().String())
				expectProbe(t, out, code, !denied)
				if got := connectedBefore(t, ln, accepted); got == denied {
					t.Errorf("listener accepted=%v, want %v", got, !denied)
				}
			})
			// A host daemon's socket outside the writable set is out of
			// reach unless the profile lists it.
			t.Run("unix-host", func(t *testing.T) {
				out, code := f.sandboxed(t, prof, probe, "unix", sock)
				expectProbe(t, out, code, !denied)
			})
			t.Run("unix-listed", func(t *testing.T) {
				listed := filepath.Join(t.TempDir(), "listed.toml")
				mustWrite(t, listed, "extends = \""+prof+"\"\n[network]\nunix_sockets = [\""+sock+"\"]\n")
				out, code := f.sandboxed(t, listed, probe, "unix", sock)
				expectProbe(t, out, code, true)
			})
		})
	}
	t.Run("isolated", func(t *testing.T) {
		requireFeature(t, h.Host.Root || h.Host.UserNS, "user namespaces")
		iso := filepath.Join(t.TempDir(), "iso.toml")
		mustWrite(t, iso, "extends = \"workspace-write\"\n[network]\nmode = \"isolated\"\n")
		out, code := f.sandboxed(t, iso, probe, "tcp", ln.Addr().String())
		expectProbe(t, out, code, false)
		if connectedBefore(t, ln, accepted) {
			t.Errorf("host listener got a connection from an isolated sandbox")
		}
		// Positive control: the private loopback works (a listener inside).
		out, code = f.sandboxed(t, iso, probe, "loopback")
		expectProbe(t, out, code, true)
	})
	t.Run("unix-denied", func(t *testing.T) {
		deny := filepath.Join(t.TempDir(), "nounix.toml")
		mustWrite(t, deny, "extends = \"workspace-write\"\n[network]\nmode = \"off\"\nunix_sockets = \"deny\"\n")
		out, code := f.sandboxed(t, deny, probe, "unix", sock)
		expectProbe(t, out, code, false)
	})
}

// acceptAll accepts and closes connections on ln until it is closed,
// sending each one's remote address on accepted unless that is nil.
func acceptAll(ln net.Listener, accepted chan<- string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
		if accepted != nil {
			accepted <- c.RemoteAddr().String()
		}
	}
}

// acceptDeadline bounds the wait for the marker connection of
// connectedBefore; reaching it fails the test (a hang), it times nothing.
const acceptDeadline = time.Minute

// connectedBefore reports whether anything connected to the TCP listener
// ln since the last call. It connects a marker of its own and takes what
// acceptAll reports up to the marker: a connection made by a process that
// has already exited was queued before the marker, and the accept queue
// is first in, first out. No waiting for "long enough" is involved.
func connectedBefore(t *testing.T, ln net.Listener, accepted <-chan string) bool {
	t.Helper()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("marker connection: %v", err)
	}
	defer c.Close()
	marker := c.LocalAddr().String()
	deadline := time.NewTimer(acceptDeadline)
	defer deadline.Stop()
	got := false
	for {
		select {
		case a := <-accepted:
			if a == marker {
				return got
			}
			got = true
		case <-deadline.C:
			t.Fatalf("the marker connection was not accepted within %v", acceptDeadline)
		}
	}
}

func TestEscapeProcess(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	probe := buildProbe(t)
	f := newFixture(t)
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	pid := strconv.Itoa(victim.Process.Pid)
	for _, prof := range allProfiles {
		t.Run(prof, func(t *testing.T) {
			restricted := prof != "full-access"
			for _, c := range []struct {
				name string
				args []string
			}{
				{"ptrace", []string{"ptrace", pid}},
				{"io_uring", []string{"io_uring"}},
				{"bpf", []string{"bpf"}},
				{"mount", []string{"mount"}},
				{"unshare", []string{"unshare"}},
				{"clone-newns", []string{"clone-newns"}},
				{"keyctl", []string{"keyctl"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					out, code := f.sandboxed(t, prof, append([]string{probe}, c.args...)...)
					if restricted {
						expectProbe(t, out, code, false)
					} else if c.name == "ptrace" || c.name == "keyctl" {
						expectProbe(t, out, code, true) // positive control: the probe itself works
					}
				})
			}
			// Process layers apply to every profile, full-access included.
			t.Run("no_new_privs", func(t *testing.T) {
				out, code := f.sandboxed(t, prof, probe, "nnp")
				expectProbe(t, out, code, true)
			})
			t.Run("setsid", func(t *testing.T) {
				out, code := f.sandboxed(t, prof, probe, "setsid")
				expectProbe(t, out, code, true)
			})
		})
	}
	t.Run("control-outside-sandbox", func(t *testing.T) {
		out, err := exec.Command(probe, "nnp").CombinedOutput()
		if err == nil {
			t.Errorf("NoNewPrivs already set outside the sandbox; the nnp probe proves nothing:\n%s", out)
		}
	})
}

func TestEscapeTIOCSTI(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.Seccomp, "seccomp")
	probe := buildProbe(t)
	f := newFixture(t)
	for _, prof := range restricted {
		for _, op := range []string{"tiocsti", "tiocsti-high"} {
			t.Run(prof+"/"+op, func(t *testing.T) {
				ptm, tty, err := pty.Open()
				if err != nil {
					t.Fatal(err)
				}
				defer ptm.Close()
				defer tty.Close()
				cmd := exec.Command(gatedexecBin, "sandbox", "-p", prof, "-C", f.ws, "-w", f.ws, "--", probe, op)
				var out bytes.Buffer
				cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &out
				err = cmd.Run()
				if err == nil || !strings.Contains(out.String(), "denied:") {
					t.Errorf("TIOCSTI into the caller's tty was not refused (err %v):\n%s", err, out.String())
				}
			})
		}
	}
}
