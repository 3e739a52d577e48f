//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// requireRoot skips t, for the reason why, unless it runs as root; CI
// does, so there it fails instead.
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI runs as root, this test does not: %s", why)
	}
	t.Skip(why)
}

// requireLandlock skips the test where the kernel has no Landlock, but
// never in CI, whose hosts have it: there the test runs, and fails.
func requireLandlock(t *testing.T) {
	t.Helper()
	if landlockABI() == 0 && os.Getenv("CI") == "" {
		t.Skip("no landlock")
	}
}

// statusCase is a command of TestRunnerStatus and how its run ends.
type statusCase struct {
	name     string
	argv     []string
	limits   sandbox.Limits
	code     int
	signal   int
	err      error
	timedOut bool
	stdout   string
	tail     string
}

func TestRunnerStatus(t *testing.T) {
	requireLandlock(t)
	ws := t.TempDir()
	prof := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true, EnvDeny: []string{"*_TOKEN"}}
	tests := []statusCase{
		{"exit status", []string{"sh", "-c", "exit 3"}, sandbox.Limits{}, 3, 0, nil, false, "", ""},
		{"signal", []string{"sh", "-c", "kill -USR1 $$"}, sandbox.Limits{}, 128 + 10, 10, nil, false, "", ""},
		{"not found", []string{"no-such-program-xyz"}, sandbox.Limits{}, 127, 0, sandbox.ErrNotFound, false, "", ""},
		{"cannot exec", []string{"/etc/hostname"}, sandbox.Limits{}, 0, 0, sandbox.ErrCannotExec, false, "", ""},
		{"env scrubbed", []string{"sh", "-c", "echo ${GH_TOKEN:-none} $KEEP"}, sandbox.Limits{}, 0, 0, nil, false, "none kept\n", ""},
		{"stderr tail", []string{"sh", "-c", "echo oops >&2; exit 1"}, sandbox.Limits{}, 1, 0, nil, false, "", "oops\n"},
		{"timeout kills group", []string{"sh", "-c", "sleep 30 & sleep 30"}, sandbox.Limits{Timeout: 300 * time.Millisecond},
			128 + 15, 15, nil, true, "", ""},
		{"rlimit", []string{"sh", "-c", "ulimit -n"}, sandbox.Limits{NoFile: 42}, 0, 0, nil, false, "42\n", ""},
		// The helper runs off the runner's CPU (moveAside); the command
		// runs where the runner may.
		{"runner's CPUs", []string{"grep", "Cpus_allowed_list", "/proc/self/status"}, sandbox.Limits{}, 0, 0, nil, false,
			cpusAllowed(t), ""},
	}
	// A LongLived Runner serves its runs after the first with helpers
	// started ahead (prestart.go): they must end the same.
	long := &Runner{LongLived: true}
	defer long.Close()
	for _, r := range []*Runner{{}, long} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/longlived=%v", tt.name, r.LongLived), func(t *testing.T) {
				tt.check(t, r, prof, ws)
			})
		}
	}
	if long.cache.pool.used.Load() == 0 {
		t.Error("no run of the LongLived Runner was served by a prestarted helper")
	}
}

// cpusAllowed is this process's Cpus_allowed_list line of
// /proc/self/status.
func cpusAllowed(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "Cpus_allowed_list:") {
			return line
		}
	}
	t.Fatal("no Cpus_allowed_list in /proc/self/status")
	return ""
}

// check runs tt on r under prof (with tt's limits) in ws.
func (tt statusCase) check(t *testing.T, r *Runner, prof *sandbox.Profile, ws string) {
	t.Helper()
	p := *prof
	p.Limits = tt.limits
	var stdout, stderr bytes.Buffer
	res, err := r.Run(context.Background(), &Command{
		Argv: tt.argv, Dir: ws, Env: []string{"PATH=/usr/bin:/bin", "GH_TOKEN=secret", "KEEP=kept"},
		Stdout: &stdout, Stderr: &stderr, Profile: &p,
	})
	if tt.err != nil {
		if !errors.Is(err, tt.err) {
			t.Fatalf("err = %v, want %v", err, tt.err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != tt.code || res.Signal != tt.signal || res.TimedOut != tt.timedOut {
		t.Errorf("result = code %d signal %d timedOut %v; want %d %d %v (stderr %q)",
			res.ExitCode, res.Signal, res.TimedOut, tt.code, tt.signal, tt.timedOut, stderr.String())
	}
	if tt.stdout != "" && stdout.String() != tt.stdout {
		t.Errorf("stdout = %q, want %q", stdout.String(), tt.stdout)
	}
	if tt.tail != "" && (string(res.StderrTail) != tt.tail || stderr.String() != tt.tail) {
		t.Errorf("stderr tail %q, live %q; want %q", res.StderrTail, stderr.String(), tt.tail)
	}
	if !strings.Contains(strings.Join(res.Layers, ","), "seccomp") {
		t.Errorf("layers %v lack seccomp", res.Layers)
	}
}

// TestRunnerHelperExitsUnread: a helper that exits without reading its
// spec (here a binary that is not gatedexec) makes Run fail, and a spec
// larger than the pipe buffer does not block the runner forever.
func TestRunnerHelperExitsUnread(t *testing.T) {
	// A limit makes it a helper's run: without one an unrestricted
	// profile starts the command directly (TestDirect).
	p := &sandbox.Profile{Name: "t", Unrestricted: true, ReadAll: true, Write: []string{"/"}, Network: sandbox.NetworkOn,
		Limits: sandbox.Limits{NoFile: 256}}
	env := []string{"PATH=/usr/bin:/bin", "BIG=" + strings.Repeat("x", 1<<20)}
	_, err := (&Runner{Exe: "/bin/true"}).Run(context.Background(), &Command{Argv: []string{"true"}, Env: env, Profile: p})
	if err == nil || !strings.Contains(err.Error(), "writing the helper spec") {
		t.Fatalf("Run = %v, want an error writing the helper spec", err)
	}
}

// TestProbeAgreesWithRunner: Probe reports the namespaces available
// exactly when a strict run that needs them (mount plan and isolated
// network) can set them up.
func TestProbeAgreesWithRunner(t *testing.T) {
	requireLandlock(t)
	ws := t.TempDir()
	secret := filepath.Join(ws, "secret")
	if err := os.Mkdir(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	caps := Probe()
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Hide: []string{secret}, Network: sandbox.NetworkIsolated, UnixSockets: true}
	_, err := (&Runner{Warn: io.Discard}).Run(context.Background(), &Command{Argv: []string{"true"}, Dir: ws,
		Env: []string{"PATH=/usr/bin:/bin"}, Profile: p})
	if want := caps.MountNS && caps.NetNS && (caps.Root || caps.UserNS); (err == nil) != want {
		t.Errorf("Probe: mount ns %v, net ns %v, user ns %v; a strict run needing them: %v", caps.MountNS, caps.NetNS, caps.UserNS, err)
	}
}

func TestRunnerNoProfile(t *testing.T) {
	if _, err := (&Runner{}).Run(context.Background(), &Command{Argv: []string{"true"}}); err == nil {
		t.Fatal("Run without a profile succeeded")
	}
}

// TestRunnerCwdBelowMount runs commands whose working directory (the
// caller's, Dir empty) is at or below a protected or hidden path: the
// mounts must cover it there too, not only for paths looked up from /.
func TestRunnerCwdBelowMount(t *testing.T) {
	requireLandlock(t)
	ws := t.TempDir()
	git, secret := filepath.Join(ws, ".git"), filepath.Join(ws, "secret")
	for _, d := range []string{git, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(git, "config"), []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "key"), []byte("hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cwd string
		argv      []string
	}{
		{"protected cwd", git, []string{"sh", "-c", "echo evil >> config"}},
		{"protected cwd, new file", git, []string{"sh", "-c", "echo evil > hooks"}},
		{"hidden cwd", secret, []string{"cat", "key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(tt.cwd)
			p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
				Protect: []string{git}, Hide: []string{secret}, Network: sandbox.NetworkOff, UnixSockets: true}
			var stdout, stderr bytes.Buffer
			res, err := (&Runner{}).Run(context.Background(), &Command{
				Argv: tt.argv, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &stdout, Stderr: &stderr, Profile: p,
			})
			if errors.Is(err, sandbox.ErrLayerUnavailable) && os.Getenv("CI") == "" {
				t.Skipf("no mount namespace: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode == 0 || strings.Contains(stdout.String(), "hunter2") {
				t.Errorf("%v in %s: exit %d, stdout %q; want a failure", tt.argv, tt.cwd, res.ExitCode, stdout.String())
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(git, "config")); err != nil || string(b) != "orig\n" {
		t.Errorf(".git/config = %q, %v; want it unchanged", b, err)
	}
	if _, err := os.Lstat(filepath.Join(git, "hooks")); err == nil {
		t.Error(".git/hooks was created inside the protected directory")
	}
}

// slowWriter is a caller's writer that is not an *os.File, so the output
// reaches it through a copy in the runner, and a slow one.
type slowWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(50 * time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *slowWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestRunnerOutputComplete checks that Run returns only once the
// command's output has reached the caller's writers.
func TestRunnerOutputComplete(t *testing.T) {
	requireLandlock(t)
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Network: sandbox.NetworkOff, UnixSockets: true}
	var stdout, stderr slowWriter
	res, err := (&Runner{}).Run(context.Background(), &Command{
		Argv: []string{"sh", "-c", "echo out; echo err >&2"}, Env: []string{"PATH=/usr/bin:/bin"},
		Stdout: &stdout, Stderr: &stderr, Profile: p,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, gotErr := stdout.String(), stderr.String(); got != "out\n" || gotErr != "err\n" || string(res.StderrTail) != "err\n" {
		t.Errorf("when Run returned: stdout %q, stderr %q, tail %q; want \"out\\n\", \"err\\n\", \"err\\n\"", got, gotErr, res.StderrTail)
	}
}

// TestRunnerProtectCoversSubmounts: a mount below a protect path is
// read-only too, not only the protect path's own mount.
func TestRunnerProtectCoversSubmounts(t *testing.T) {
	requireRoot(t, "mounting the test's submount needs root")
	ws := t.TempDir()
	prot := filepath.Join(ws, "prot")
	sub := filepath.Join(prot, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", sub, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(sub, unix.MNT_DETACH) })
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Protect: []string{prot}, Network: sandbox.NetworkOff, UnixSockets: true}
	run := func(script string) (int, string) {
		var stderr bytes.Buffer
		res, err := (&Runner{}).Run(context.Background(), &Command{
			Argv: []string{"sh", "-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Stderr: &stderr, Profile: p,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.ExitCode, stderr.String()
	}
	if code, out := run("echo ok > beside"); code != 0 {
		t.Fatalf("control: writing beside the protect path failed (%d): %s", code, out)
	}
	if code, out := run("echo evil > prot/sub/x"); code == 0 || !strings.Contains(out, "Read-only") {
		t.Errorf("write below a submount of a protect path: exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(sub, "x")); err == nil {
		t.Error("the file was written in the protected submount")
	}
}

// TestRunnerRootWriteKeepsProtect: with write access to "/" (an
// escalation's grant), a protected file cannot be reached by renaming a
// directory above it aside and making a fresh one in its place.
func TestRunnerRootWriteKeepsProtect(t *testing.T) {
	requireLandlock(t)
	ws := t.TempDir()
	git := filepath.Join(ws, ".git")
	config := filepath.Join(git, "config")
	if err := os.Mkdir(git, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{"/"},
		Protect: []string{config}, Network: sandbox.NetworkOff, UnixSockets: true}
	for _, script := range []string{
		"mv .git .git2 && mkdir .git && echo evil > .git/config",
		"cd .. && mv " + filepath.Base(ws) + " moved && mkdir -p " + git + " && echo evil > " + config,
	} {
		var stderr bytes.Buffer
		res, err := (&Runner{}).Run(context.Background(), &Command{
			Argv: []string{"sh", "-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Stderr: &stderr, Profile: p,
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode == 0 {
			t.Errorf("%q succeeded; want the rename refused: %s", script, stderr.String())
		}
		if b, err := os.ReadFile(config); err != nil || string(b) != "orig\n" {
			t.Errorf("after %q: %s holds %q (%v), want orig", script, config, b, err)
		}
	}
}

// TestReportedSignal: a signal report counts only as the helper's exit
// 128+N for a signal N, from a helper that was not killed itself.
func TestReportedSignal(t *testing.T) {
	for _, tt := range []struct {
		msg       string
		code, sig int
		want      int
		ok        bool
	}{
		{"15", 143, 0, 15, true},
		{"9", 137, 0, 9, true},
		{"15", 15, 0, 0, false},  // not 128+N
		{"15", 143, 9, 0, false}, // the helper itself was killed
		{"0", 128, 0, 0, false},
		{"65", 193, 0, 0, false},
		{"x", 143, 0, 0, false},
		{"", 128, 0, 0, false},
	} {
		got, err := reportedSignal(tt.msg, tt.code, tt.sig)
		if got != tt.want || (err == nil) != tt.ok || err != nil && !errors.Is(err, sandbox.ErrLayerUnavailable) {
			t.Errorf("reportedSignal(%q, %d, %d) = %d, %v; want %d, ok %v", tt.msg, tt.code, tt.sig, got, err, tt.want, tt.ok)
		}
	}
}

// TestRunnerStderrTail: a pipe on stderr reaches the command through the
// runner's copy, which keeps the tail, unless the caller reads none
// (NoStderrTail): then the command writes to the caller's pipe itself.
func TestRunnerStderrTail(t *testing.T) {
	requireLandlock(t)
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Network: sandbox.NetworkOff, UnixSockets: true}
	for _, noTail := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoStderrTail=%v", noTail), func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			var st unix.Stat_t
			if err := unix.Fstat(int(pw.Fd()), &st); err != nil {
				t.Fatal(err)
			}
			caller := fmt.Sprintf("pipe:[%d]", st.Ino)
			got := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(pr)
				got <- b
			}()
			var stdout bytes.Buffer
			res, err := (&Runner{}).Run(context.Background(), &Command{
				Argv: []string{"sh", "-c", "readlink /proc/self/fd/2; echo err >&2"}, Env: []string{"PATH=/usr/bin:/bin"},
				Stdout: &stdout, Stderr: pw, Profile: p, NoStderrTail: noTail,
			})
			pw.Close()
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: %v, %+v", err, res)
			}
			if b := <-got; string(b) != "err\n" {
				t.Errorf("the caller's pipe got %q, want \"err\\n\"", b)
			}
			fd2 := strings.TrimSpace(stdout.String())
			wantTail := "err\n"
			if noTail {
				wantTail = ""
			}
			if string(res.StderrTail) != wantTail {
				t.Errorf("tail %q, want %q", res.StderrTail, wantTail)
			}
			if (fd2 == caller) != noTail {
				t.Errorf("the command's stderr is %s, the caller's pipe %s: want the same only without a tail", fd2, caller)
			}
		})
	}
}
