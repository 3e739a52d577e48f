//go:build linux

package linux

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

func TestKeptNetFor(t *testing.T) {
	off := &sandbox.Profile{Network: sandbox.NetworkOff}
	const flags = unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	r := &Runner{KeptNetNS: "/kept"}
	r.cache.hostOnce.Do(func() { r.cache.caps = Capabilities{LandlockABI: scopeABI, Root: true} })
	old := &Runner{KeptNetNS: "/kept"}
	old.cache.hostOnce.Do(func() { old.cache.caps = Capabilities{LandlockABI: scopeABI - 1, Root: true} })
	for _, tt := range []struct {
		name    string
		r       *Runner
		p       *sandbox.Profile
		unshare uint32
		want    bool
	}{
		{"network off, root", r, off, flags, true},
		{"no directory", &Runner{}, off, flags, false},
		{"isolated network", r, &sandbox.Profile{Network: sandbox.NetworkIsolated}, flags, false},
		{"proxied network", r, &sandbox.Profile{Network: sandbox.NetworkProxy}, flags, false},
		{"unrestricted", r, &sandbox.Profile{Network: sandbox.NetworkOff, Unrestricted: true}, flags, false},
		{"no network namespace", r, off, flags &^ unix.CLONE_NEWNET, false},
		{"no PID namespace", r, off, flags &^ unix.CLONE_NEWPID, false},
		{"a user namespace", r, off, flags | unix.CLONE_NEWUSER, false},
		{"Landlock without scope", old, off, flags, false},
	} {
		if got := tt.r.keptNetFor(tt.p, tt.unshare); got != tt.want {
			t.Errorf("%s: keptNetFor = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// keptNetRunner returns a Runner keeping network namespaces in a
// directory of the test's, whose namespaces are unmounted at its end.
func keptNetRunner(t *testing.T) (*Runner, string) {
	t.Helper()
	requireRoot(t, "a kept network namespace is for runs as root")
	if landlockABI() < scopeABI && os.Getenv("CI") == "" {
		t.Skip("Landlock cannot scope abstract sockets here")
	}
	dir := filepath.Join(t.TempDir(), "netns")
	t.Cleanup(func() {
		for i := range keptNetNSMax {
			unix.Unmount(filepath.Join(dir, strconv.Itoa(i)), unix.MNT_DETACH)
		}
	})
	return &Runner{KeptNetNS: dir}, dir
}

// netnsOf runs readlink of the command's network namespace under r and
// returns it; with hold, the command then waits for a file "done" in ws.
func netnsOf(r *Runner, p *sandbox.Profile, ws string, hold bool) (string, error) {
	script := `readlink /proc/self/ns/net`
	if hold {
		script += `; while [ ! -e done ]; do sleep 0.01; done`
	}
	var out, errb bytes.Buffer
	res, err := r.Run(context.Background(), &Command{Argv: []string{"sh", "-c", script}, Dir: ws,
		Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &errb, Profile: p})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("exit %d, stderr %q", res.ExitCode, errb.String())
	}
	return strings.TrimSpace(out.String()), err
}

// mustNetnsOf is netnsOf failing the test on an error.
func mustNetnsOf(t *testing.T, r *Runner, p *sandbox.Profile, ws string) string {
	t.Helper()
	ns, err := netnsOf(r, p, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// A network-off run as root joins a kept network namespace: the same one
// as the run before, never the host's, and never one another run holds.
func TestKeptNetNS(t *testing.T) {
	r, dir := keptNetRunner(t)
	ws := t.TempDir()
	p := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true}
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	first := mustNetnsOf(t, r, p, ws)
	second := mustNetnsOf(t, r, p, ws)
	if first == host || second != first {
		t.Fatalf("two runs in %s and %s (the host's %s): want one kept namespace, not the host's", first, second, host)
	}
	var sf unix.Statfs_t
	if err := unix.Statfs(filepath.Join(dir, "0"), &sf); err != nil || sf.Type != unix.NSFS_MAGIC {
		t.Errorf("slot 0: %v, type %#x: want a namespace file bound there", err, sf.Type)
	}

	// A run holding slot 0 leaves the next one another namespace.
	var wg sync.WaitGroup
	var held string
	var heldErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		held, heldErr = netnsOf(r, p, ws, true)
	}()
	for deadline := time.Now().Add(10 * time.Second); !slotHeld(dir, 0); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slot 0 not held by the first run")
		}
	}
	other, err := netnsOf(r, p, ws, false)
	if err := os.WriteFile(filepath.Join(ws, "done"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err != nil || heldErr != nil {
		t.Fatalf("concurrent runs: %v, %v", heldErr, err)
	}
	if held != first || other == first || other == host {
		t.Errorf("concurrent runs in %s and %s (kept %s, host %s): want the kept one and another, not the host's", held, other, first, host)
	}
	// Their helpers gone, no slot is held.
	for i := range 2 {
		if slotHeld(dir, i) {
			t.Errorf("slot %d still held after its runs", i)
		}
	}
	if got := r.cache.pool.used.Load(); got != 4 {
		t.Errorf("helpers started ahead served %d of 4 runs", got)
	}
}

// A slot holding a namespace the helper did not make (planted by someone
// who could mount) is not joined: the run makes its own.
func TestKeptNetNSRefusesPlanted(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, slot string)
	}{
		{"the host's", func(t *testing.T, slot string) {
			if err := unix.Mount("/proc/self/ns/net", slot, "", unix.MS_BIND, ""); err != nil {
				t.Fatal(err)
			}
		}},
		{"one set up, its loopback up as a container's would be", func(t *testing.T, slot string) {
			plantSetUp(t, slot, "lo-up")
		}},
		{"one with an interface of its own, its loopback down", func(t *testing.T, slot string) {
			plantSetUp(t, slot, "tun")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := keptNetRunner(t)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			slot := filepath.Join(dir, "0")
			if err := os.WriteFile(slot, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			tt.plant(t, slot)
			var st unix.Stat_t
			if err := unix.Stat(slot, &st); err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			p := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
				Network: sandbox.NetworkOff, UnixSockets: true}
			host, _ := os.Readlink("/proc/self/ns/net")
			got := mustNetnsOf(t, r, p, ws)
			if got == fmt.Sprintf("net:[%d]", st.Ino) || got == host || !strings.HasPrefix(got, "net:[") {
				t.Errorf("run in %s with %s (inode %d) in slot 0 (host %s): want one of its own", got, tt.name, st.Ino, host)
			}
		})
	}
}

// plantSetUp binds at slot a network namespace set up by how (see
// setUpNetNSAt), in a process of its own, born in the namespace: a thread
// of this one moved there could be the main thread, which Go keeps.
func plantSetUp(t *testing.T, slot, how string) {
	t.Helper()
	setUp := exec.Command(os.Args[0])
	setUp.Env = append(os.Environ(), setUpNetNSEnv+"="+slot, setUpNetNSHowEnv+"="+how)
	setUp.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if out, err := setUp.CombinedOutput(); err != nil {
		t.Fatalf("setting up a namespace (%s): %v: %s", how, err, out)
	}
}

// slotHeld reports whether a helper holds the lock of slot i in dir.
func slotHeld(dir string, i int) bool {
	f, err := os.Open(filepath.Join(dir, strconv.Itoa(i)+".lock"))
	if err != nil {
		return false
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return true
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}

// setUpNetNSEnv names the slot a run of the test binary made only to set
// up a network namespace binds it at (TestMain).
const setUpNetNSEnv = "GX_TEST_SET_UP_NETNS"

// setUpNetNSHowEnv says how that namespace is set up: "lo-up" brings its
// loopback up, "tun" adds a persistent tun interface, the loopback left
// down.
const setUpNetNSHowEnv = "GX_TEST_SET_UP_NETNS_HOW"

// TestMain runs the tests, or, in the process TestKeptNetNSRefusesSetUpNamespace
// starts in a network namespace of its own, brings its loopback up and
// binds the namespace at $GX_TEST_SET_UP_NETNS.
func TestMain(m *testing.M) {
	if path := os.Getenv(setUpNetNSEnv); path != "" {
		if err := setUpNetNSAt(path, os.Getenv(setUpNetNSHowEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// setUpNetNSAt sets this process's network namespace up as how says
// (setUpNetNSHowEnv) and binds it at path.
func setUpNetNSAt(path, how string) error {
	var err error
	switch how {
	case "lo-up":
		err = loopbackUp()
	case "tun":
		err = addTun("gxtest0")
	default:
		err = fmt.Errorf("unknown set-up %q", how)
	}
	if err != nil {
		return err
	}
	return unix.Mount("/proc/self/ns/net", path, "", unix.MS_BIND, "")
}

// addTun adds a persistent tun interface named name to this process's
// network namespace.
func addTun(name string) error {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		return fmt.Errorf("TUNSETIFF: %w", err)
	}
	return unix.IoctlSetInt(fd, unix.TUNSETPERSIST, 1)
}

// loopbackUp brings the loopback of this process's network namespace up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
