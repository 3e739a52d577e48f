//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
)

// TestRunnerPrestarted: a LongLived Runner's runs after the first are
// served by helpers started ahead, and each is sandboxed as a one-shot
// run is: namespaces of its own (never a previous run's), its own PID
// namespace, no descriptor but its standard ones, its output and status
// whole. A run wanting other namespaces, or a stdin that is not a file,
// gets a helper of its own and is right too; Close leaves no helper.
func TestRunnerPrestarted(t *testing.T) {
	requireLandlock(t)
	ws := t.TempDir()
	off := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64}}
	on := *off
	on.Name, on.Network = "on", sandbox.NetworkOn
	hostNet, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{LongLived: true}
	run := func(p *sandbox.Profile, stdin io.Reader, script string) (string, int) {
		t.Helper()
		var out, errb bytes.Buffer
		res, err := r.Run(context.Background(), &Command{Argv: []string{"sh", "-c", script}, Dir: ws,
			Env: []string{"PATH=/usr/bin:/bin"}, Stdin: stdin, Stdout: &out, Stderr: &errb, Profile: p})
		if err != nil {
			t.Fatalf("%s: %v (stderr %q)", script, err, errb.String())
		}
		if errb.String() != "err\n" {
			t.Errorf("%s: stderr %q, want %q", script, errb.String(), "err\n")
		}
		return out.String(), res.ExitCode
	}
	// A run leaves a System V segment in its IPC namespace: a later run
	// that found one would be in an earlier run's namespaces (their
	// inode numbers are reused once freed, and cannot tell).
	// Every capability set is empty, the bounding set too (a prestarted
	// helper drops that one before its go-ahead).
	const probe = `echo err >&2; echo $$; readlink /proc/self/ns/net; ls /proc/self/fd | tr '\n' ' '; echo; ` +
		`ipcs -m | grep -c '^0x'; ipcmk -M 64 >/dev/null; ipcs -m | grep -c '^0x'; ` +
		`grep '^Cap' /proc/self/status | tr -d '\t' | tr '\n' ' '; exit 7`
	check := func(p *sandbox.Profile, stdin io.Reader) {
		t.Helper()
		out, code := run(p, stdin, probe)
		lines := strings.Split(out, "\n")
		if code != 7 || len(lines) < 6 {
			t.Fatalf("%s: exit %d, output %q", p.Name, code, out)
		}
		if lines[0] != "2" {
			t.Errorf("%s: the shell is pid %s, want 2 (under the namespace's init)", p.Name, lines[0])
		}
		switch netns := lines[1]; {
		case p.Network == sandbox.NetworkOn && netns != hostNet:
			t.Errorf("%s: network namespace %s, want the host's %s", p.Name, netns, hostNet)
		case p.Network == sandbox.NetworkOff && netns == hostNet:
			t.Errorf("%s: the host's network namespace %s", p.Name, netns)
		}
		if lines[3] != "0" || lines[4] != "1" {
			t.Errorf("%s: System V segments in the IPC namespace: %s, then %s after making one; want 0 (none of an earlier run's), then 1",
				p.Name, lines[3], lines[4])
		}
		if want := "CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 CapBnd:0000000000000000 CapAmb:0000000000000000 "; lines[5] != want {
			t.Errorf("%s: capabilities %q, want %q", p.Name, lines[5], want)
		}
		// ls's own directory is the one descriptor above 2.
		if fds := strings.Fields(lines[2]); len(fds) != 4 {
			t.Errorf("%s: descriptors %v, want 0 1 2 and ls's own", p.Name, fds)
		}
	}
	check(off, nil)
	// The runs after it leave no namespace open.
	fdsBefore := nsFDs(t)
	for range 3 {
		check(off, nil)
	}
	if got := r.cache.pool.used.Load(); got < 3 {
		t.Errorf("prestarted helpers served %d of the 3 runs after the first", got)
	}
	// A helper that has made its namespaces, and sent its mount
	// namespace, while nobody called is not taken for gone. (Three
	// tries: a loaded machine may end one for other reasons; taken for
	// gone, none serves.)
	ownNS, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	served := false
	for try := 0; try < 3 && !served; try++ {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if w := prestartedChildren(t); len(w) == 1 {
				if ns, err := os.Readlink("/proc/" + strconv.Itoa(w[0]) + "/ns/mnt"); err == nil && ns != ownNS {
					break
				}
			}
		}
		time.Sleep(20 * time.Millisecond) // its message sent
		// Its init waits with it, in the PID namespace made for the run.
		if w := prestartedChildren(t); len(w) == 1 {
			checkPrestartedInit(t, w[0])
		}
		before := r.cache.pool.used.Load()
		check(off, nil)
		served = r.cache.pool.used.Load() == before+1
	}
	if !served {
		t.Error("helpers prestarted while nobody called served none of the next three runs")
	}
	// Each handed its mount namespace, to be torn down after the result.
	if got, want := r.cache.pool.mountNS.Load(), r.cache.pool.used.Load(); got != want {
		t.Errorf("the runner held the mount namespaces of %d of the %d prestarted runs", got, want)
	}
	// A helper killed while it waits does not fail the run it was for.
	var waiting []int
	for deadline := time.Now().Add(5 * time.Second); len(waiting) == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		waiting = prestartedChildren(t)
	}
	if len(waiting) != 1 {
		t.Fatalf("prestarted helpers waiting: %v, want 1", waiting)
	}
	unix.Kill(waiting[0], unix.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); !zombie(waiting[0]) && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	before := r.cache.pool.used.Load()
	check(off, nil)
	if got := r.cache.pool.used.Load(); got != before {
		t.Error("a killed prestarted helper was handed a run")
	}
	before = r.cache.pool.used.Load()
	check(&on, nil) // other namespaces: its own helper
	check(off, nil) // the one waiting was started for "on"
	check(&on, nil) // and this one for "off"
	check(&on, nil) // served
	if got := r.cache.pool.used.Load() - before; got != 1 {
		t.Errorf("prestarted helpers served %d runs alternating profiles, want 1", got)
	}
	if out, code := run(off, strings.NewReader("in\n"), "echo err >&2; cat"); out != "in\n" || code != 0 {
		t.Errorf("stdin from a reader: %q, exit %d", out, code)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if left := prestartedChildren(t); len(left) > 0 {
		t.Errorf("prestarted helpers %v are left after Close", left)
	}
	if after := nsFDs(t); after > fdsBefore {
		t.Errorf("%d namespace descriptors open after Close, %d after the first run: the runner kept a mount namespace", after, fdsBefore)
	}
}

// fdsOf returns this process's open descriptors whose link in
// /proc/self/fd starts with one of kinds ("mnt:[", "socket:[").
func fdsOf(t *testing.T, kinds ...string) map[int]bool {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := map[int]bool{}
	for _, e := range entries {
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && slices.ContainsFunc(kinds, func(k string) bool { return strings.HasPrefix(l, k) }) {
			n, _ := strconv.Atoi(e.Name())
			fds[n] = true
		}
	}
	return fds
}

// nsFDs counts this process's open descriptors of namespaces (a held
// mount namespace is one): other tests' background work opens and closes
// files meanwhile, never these. Only mount and network ones are opened
// here.
func nsFDs(t *testing.T) int { return len(fdsOf(t, "mnt:[", "net:[")) }

// TestHoldMountNS: the runner takes from a prestarted helper's socket one
// descriptor of a mount namespace other than its own, and nothing else;
// no message in time, or the helper's end closed, is no error.
func TestHoldMountNS(t *testing.T) {
	own, err := os.Open("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(own.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	netns, err := os.Open("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	defer netns.Close()
	for _, tc := range []struct {
		name   string
		data   string
		fds    []*os.File
		parent uint64
		close  bool // the helper's end, after the message
		held   bool
		err    string
	}{
		{name: "a mount namespace not the runner's", data: "N", fds: []*os.File{own}, parent: st.Ino + 1, held: true},
		{name: "the runner's own", data: "N", fds: []*os.File{own}, parent: st.Ino, err: "not a private one"},
		{name: "another kind of namespace", data: "N", fds: []*os.File{netns}, parent: st.Ino + 1, err: "not a private one"},
		{name: "two descriptors", data: "N", fds: []*os.File{own, own}, parent: st.Ino + 1, err: "2 descriptors"},
		{name: "no descriptor", data: "N", parent: st.Ino + 1, err: "0 descriptors"},
		{name: "another tag", data: "X", fds: []*os.File{own}, parent: st.Ino + 1, err: "\"X\""},
		{name: "the helper ended", close: true, parent: st.Ino + 1},
		{name: "nothing in time", parent: st.Ino + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			mine, theirs := os.NewFile(uintptr(fds[0]), "runner"), os.NewFile(uintptr(fds[1]), "helper")
			defer mine.Close()
			defer theirs.Close()
			if tc.data != "" {
				var rights []int
				for _, f := range tc.fds {
					rights = append(rights, int(f.Fd()))
				}
				var oob []byte
				if len(rights) > 0 {
					oob = unix.UnixRights(rights...)
				}
				if err := unix.Sendmsg(fds[1], []byte(tc.data), oob, nil, 0); err != nil {
					t.Fatal(err)
				}
			}
			if tc.close {
				theirs.Close()
			}
			before := nsFDs(t)
			pre := &prestarted{sock: mine}
			f, err := pre.holdMountNS(tc.parent)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if (f != nil) != tc.held {
				t.Fatalf("held %v, want %v", f, tc.held)
			}
			if f != nil {
				f.Close()
			}
			if after := nsFDs(t); after != before {
				t.Errorf("%d namespace descriptors open after, %d before: a received one was kept", after, before)
			}
		})
	}
}

// checkPrestartedInit checks that the prestarted helper pid waits for its
// run with its PID namespace's init ready, the namespace's own /proc
// mounted: as root it is that init, cloned into the namespace
// (prestartAttr), and its one child is the target started ahead, not
// exec'd yet, waiting in a futex with every signal blocked; in a user
// namespace it has forked the init, its one child.
func checkPrestartedInit(t *testing.T, pid int) {
	t.Helper()
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		t.Fatal(err)
	}
	kids := strings.Fields(string(children))
	init := strconv.Itoa(pid)
	if os.Geteuid() == 0 {
		if len(kids) != 1 {
			t.Errorf("the waiting helper %d, its namespace's init, has children %v before its run, want the target started ahead", pid, kids)
			return
		}
		checkTargetAhead(t, pid, kids[0])
	} else {
		if len(kids) != 1 {
			t.Errorf("the waiting helper %d has children %v, want its init", pid, kids)
			return
		}
		init = kids[0]
	}
	own, _ := os.Readlink("/proc/self/ns/pid")
	if ns, err := os.Readlink("/proc/" + init + "/ns/pid"); err != nil || ns == own {
		t.Errorf("the init %s is in PID namespace %q (%v), want one of its own", init, ns, err)
	}
	// Its /proc is the namespace's: pid 1 there is the init, not the
	// host's init.
	stat := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b[bytes.LastIndexByte(b, ')')+1:]) // past pid and comm
	}
	self, inside, host := stat("/proc/"+init+"/stat"), stat("/proc/"+init+"/root/proc/1/stat"), stat("/proc/1/stat")
	if fields := strings.Fields(inside); len(fields) < 20 || fields[19] != strings.Fields(self)[19] || inside == host {
		t.Errorf("pid 1 of the init's /proc: %q, want the init (%q), not the host's (%q)", inside, self, host)
	}
}

// checkTargetAhead checks that the child kid of the waiting init pid is
// the target started ahead: the helper's program still (no exec yet), in
// the init's memory, waiting in a futex with every standard signal but
// SIGKILL and SIGSTOP blocked (libc keeps a few realtime ones of its own).
func checkTargetAhead(t *testing.T, pid int, kid string) {
	t.Helper()
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if got, err := os.Readlink("/proc/" + kid + "/exe"); err != nil || got != exe {
		t.Errorf("the init's child %s runs %q (%v), want the helper's %q", kid, got, err, exe)
	}
	if !inFutex(kid) {
		t.Errorf("the init's child %s is not in a futex wait", kid)
	}
	const all = 0x7fffffff &^ (1<<(unix.SIGKILL-1) | 1<<(unix.SIGSTOP-1)) // signals 1 to 31
	v := procStatus(t, kid, "SigBlk")
	if got, err := strconv.ParseUint(v, 16, 64); err != nil || got&0x7fffffff != all {
		t.Errorf("the init's child %s blocks signals %q, want %x", kid, v, all)
	}
}

// inFutex reports whether the process pid is in a futex system call.
func inFutex(pid string) bool {
	sc, err := os.ReadFile("/proc/" + pid + "/syscall")
	return err == nil && strings.HasPrefix(string(sc), strconv.Itoa(unix.SYS_FUTEX)+" ")
}

// zombie reports whether pid has exited, unreaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// prestartedChildren returns the pids of this process's children that are
// prestarted helpers.
func prestartedChildren(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("\x00"+prestartArg+"\x00")) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// pid (comm) state ppid ...
			if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// withDev returns spec asking for a /dev of its own, as every run's spec
// with a mount namespace does (Runner.run), in a namespace other than
// this process's.
func withDev(t *testing.T, spec helperSpec) helperSpec {
	t.Helper()
	own, err := mountNSInode()
	if err != nil {
		t.Fatal(err)
	}
	spec.Dev, spec.ParentMntNS = true, own
	return spec
}

// TestPrestartedRefusesOtherSpecs: a prestarted helper handed a spec that
// asks for other namespaces than it made, for the host's /dev where it
// made its own before its spec came (make_ahead, helper_linux.c), or for
// a mount below that /dev, runs nothing (exit 125, a setup report): the
// runner checks the namespaces and plans nothing below /dev, and the
// helper checks both.
func TestPrestartedRefusesOtherSpecs(t *testing.T) {
	requireRoot(t, "without root the helper's namespaces need a user namespace; one test of the checks is enough")
	unshare := uint32(unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	hostDev := withDev(t, helperSpec{Path: "/bin/true", Argv: []string{"true"}, Unshare: unshare})
	hostDev.Dev = false
	belowDev := withDev(t, helperSpec{Path: "/bin/true", Argv: []string{"true"}, Unshare: unshare,
		Mounts: []mountOp{{Kind: mountNullFile, Path: "/dev/shm/x"}}})
	plain := withDev(t, helperSpec{Path: "/bin/true", Argv: []string{"true"}, Unshare: unshare})
	ports := plain
	ports.Egress = egressPorts()
	for _, tt := range []struct {
		name, report string
		spec         helperSpec
		// egress sends an egress socket with the standard descriptors.
		egress bool
	}{
		{"other namespaces", "prestarted with namespaces",
			withDev(t, helperSpec{Path: "/bin/true", Argv: []string{"true"}, Unshare: unshare | unix.CLONE_NEWNET}), false},
		{"host /dev", "a /dev of its own", hostDev, false},
		{"a mount below /dev", "below the run's own /dev", belowDev, false},
		{"an egress socket and no ports", "egress: a socket and no ports", plain, true},
		{"egress ports and no socket", "egress: ports and no socket", ports, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{LongLived: true}
			defer r.Close()
			pre := r.prestart(prestartKey{unshare: unshare}, nil)
			<-pre.ready
			if pre.err != nil {
				t.Fatal(pre.err)
			}
			// Every way out ends the helper and releases the thread
			// that forked it, which Close waits for: a failure must
			// not hang the suite.
			defer func() {
				pre.proc.Kill()
				pre.done()
			}()
			var egress *os.File
			if tt.egress {
				fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				egress = os.NewFile(uintptr(fds[1]), "egress")
				defer egress.Close()
				defer unix.Close(fds[0])
			}
			code, rep := goAheadSending(t, pre, tt.spec, egress, nil)
			if code != helperFail || !strings.Contains(rep, tt.report) {
				t.Errorf("exit %d, report %q; want %d and %q", code, rep, helperFail, tt.report)
			}
		})
	}
}

// TestPrestartedSeccompAhead: a prestarted init sent its run's seccomp
// program (seccompAheadArg) has its target load it before the run comes,
// and runs a spec with that program under it, loaded once; a spec with
// another program, or none, runs nothing (exit 125, a setup report).
func TestPrestartedSeccompAhead(t *testing.T) {
	requireRoot(t, "only an init, as root, starts its target ahead")
	unshare := uint32(unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWPID)
	prog, err := buildBPF(seccompRules(&sandbox.Profile{Network: sandbox.NetworkOff, UnixSockets: true}))
	if err != nil {
		t.Fatal(err)
	}
	other, err := buildBPF(seccompRules(&sandbox.Profile{Network: sandbox.NetworkOn}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		bpf  []byte
		ran  bool
	}{{"the same program", prog, true}, {"another program", other, false}, {"no program", nil, false}} {
		t.Run(tt.name, func(t *testing.T) {
			pre := (&Runner{}).startAhead(prestartKey{unshare: unshare, bpf: string(prog)}, nil, sandbox.BuildCache{})
			if pre == nil {
				t.Fatal("the helper did not start")
			}
			t.Cleanup(pre.end)
			// The target waits under the program before the run.
			kid := waitTargetAhead(t, pre.proc.pid)
			if got := procStatus(t, kid, "Seccomp"); got != "2" {
				t.Errorf("the target started ahead has seccomp mode %q before its run, want 2 (a filter)", got)
			}
			out := filepath.Join(t.TempDir(), "out")
			spec := withDev(t, helperSpec{Path: "/bin/sh", Unshare: unshare, BPF: tt.bpf,
				Argv: []string{"sh", "-c", `grep -E '^Seccomp(_filters)?:' /proc/self/status > "$0"`, out}})
			code, rep := goAhead(t, pre, spec)
			b, readErr := os.ReadFile(out)
			if !tt.ran {
				if code != helperFail || !strings.Contains(rep, "not the one loaded ahead") || readErr == nil {
					t.Errorf("exit %d, report %q, output %q; want %d, the program refused, nothing run", code, rep, b, helperFail)
				}
				return
			}
			if code != 0 || readErr != nil {
				t.Fatalf("exit %d, report %q, output %v", code, rep, readErr)
			}
			if got := strings.Join(strings.Fields(string(b)), " "); got != "Seccomp: 2 Seccomp_filters: 1" {
				t.Errorf("the command ran with %q, want one filter", got)
			}
		})
	}
}

// waitTargetAhead waits, at most 10 s, until the prestarted init pid has
// started its target ahead and the target waits in its futex; it returns
// the target's pid.
func waitTargetAhead(t *testing.T, pid int) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if kids := strings.Fields(string(children)); len(kids) == 1 && inFutex(kids[0]) {
			return kids[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the init %d started no target ahead: children %q", pid, children)
		}
	}
}

// procStatus returns the value of field in /proc/pid/status.
func procStatus(t *testing.T, pid, field string) string {
	t.Helper()
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TestPrestartedAwaitsCgroups: a prestarted helper forks its init only
// once the runner says it is in its run's cgroups (a unified hierarchy
// moves it there after its start): an init forked before would run the
// command outside them.
func TestPrestartedAwaitsCgroups(t *testing.T) {
	for _, extra := range [][]string{nil, {spinArg}} {
		t.Run(fmt.Sprint(extra), func(t *testing.T) { awaitsCgroups(t, extra) })
	}
}

// awaitsCgroups is TestPrestartedAwaitsCgroups for a helper started with
// the arguments extra after its flags.
func awaitsCgroups(t *testing.T, extra []string) {
	h := startBareHelper(t, extra...)
	time.Sleep(100 * time.Millisecond)
	if kids := h.children(); len(kids) != 0 {
		t.Fatalf("the helper forked %v before it was told it is in its cgroups", kids)
	}
	if _, err := h.sock.Write([]byte{prestartCgroups}); err != nil {
		t.Fatal(err)
	}
	var kids []string
	for deadline := time.Now().Add(5 * time.Second); len(kids) == 0 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		kids = h.children()
	}
	if len(kids) != 1 {
		t.Errorf("the helper's children once in its cgroups: %v, want its init", kids)
	}
}

// TestPrestartedCgroupEntryFails: a prestarted helper sent a tasks file
// it cannot move itself in by ends, saying so, and forks nothing: its run
// would otherwise go on outside its cgroups.
func TestPrestartedCgroupEntryFails(t *testing.T) {
	h := startBareHelper(t)
	ro, err := os.Open(os.DevNull) // a write fails: EBADF
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := sendCgroups(h.sock, []*os.File{ro}); err != nil {
		t.Fatal(err)
	}
	ended := make(chan []byte)
	go func() {
		report, _ := io.ReadAll(h.rep)
		ended <- report
	}()
	select {
	case report := <-ended:
		err = h.cmd.Wait()
		if h.cmd.ProcessState == nil || h.cmd.ProcessState.ExitCode() != helperFail || !strings.Contains(string(report), "entering the run's cgroups") {
			t.Errorf("helper: %v, report %q; want exit %d, entering the run's cgroups", err, report, helperFail)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("the helper went on; children %v", h.children())
	}
}

// bareHelper is a prestarted helper a test started by hand, its mount
// namespace taken, waiting for GX_PRESTART_CGROUPS on sock.
type bareHelper struct {
	cmd       *exec.Cmd
	sock, rep *os.File
}

// children returns the pids of the helper's children.
func (h *bareHelper) children() []string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", h.cmd.Process.Pid, h.cmd.Process.Pid))
	return strings.Fields(string(b))
}

// startBareHelper starts a prestarted helper for a PID and mount
// namespace, ended with the test.
func startBareHelper(t *testing.T, extra ...string) *bareHelper {
	t.Helper()
	h := startPrestartHelper(t, extra...)
	pre := &prestarted{sock: h.sock}
	if f, err := pre.holdMountNS(0); err != nil || f == nil {
		t.Fatalf("the helper's mount namespace: %v %v", f, err)
	} else {
		f.Close()
	}
	return h
}

// startPrestartHelper starts a prestarted helper by hand, with the
// arguments extra after its namespace flags, ended with the test.
func startPrestartHelper(t *testing.T, extra ...string) *bareHelper {
	t.Helper()
	requireRoot(t, "without root the helper's namespaces need a user namespace")
	r := &Runner{LongLived: true}
	t.Cleanup(func() { r.Close() })
	exe, self, _, err := r.helperExe(sandbox.BuildCache{})
	if err != nil {
		t.Fatal(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "runner"), os.NewFile(uintptr(fds[1]), "helper")
	t.Cleanup(func() { mine.Close() })
	repR, repW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repR.Close() })
	flags := unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWPID
	cmd := &exec.Cmd{
		Path:        exe,
		Args:        append([]string{"gatedexec-sandbox", HelperArg, prestartArg, strconv.Itoa(flags)}, extra...),
		Env:         []string{},
		ExtraFiles:  helperFiles(theirs, repW, nil, nil, self),
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	theirs.Close()
	repW.Close()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return &bareHelper{cmd: cmd, sock: mine, rep: repR}
}

// TestPrestartArgs: a prestarted helper takes each of its arguments after
// the namespace flags once, and refuses, before it makes anything, one
// it does not know or has been given already.
func TestPrestartArgs(t *testing.T) {
	for _, extra := range [][]string{{spinArg, spinArg}, {"spun"}, {spinArg, ""}} {
		h := startPrestartHelper(t, extra...)
		report, _ := io.ReadAll(h.rep)
		h.cmd.Wait()
		if code := h.cmd.ProcessState.ExitCode(); code != helperFail || !strings.Contains(string(report), "prestart: unknown argument") {
			t.Errorf("%q: exit %d, report %q; want %d, unknown argument", extra, code, report, helperFail)
		}
	}
}

// TestRunnerStartsAhead: a one-shot Runner starts a run's helper as a
// prestarted one before planning the run, and the run is sandboxed as
// before (its own PID and network namespaces, no capability, its output
// and status whole); nothing of its namespaces stays open after it, with
// no Close.
func TestRunnerStartsAhead(t *testing.T) {
	requireLandlock(t)
	ws := t.TempDir()
	p := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64}}
	hostNet, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{}
	before := nsFDs(t)
	for i := range 3 {
		var out, errb bytes.Buffer
		res, err := r.Run(context.Background(), &Command{Argv: []string{"sh", "-c",
			`echo $$; readlink /proc/self/ns/net; grep '^CapEff' /proc/self/status | tr -d '\t'; echo err >&2; exit 7`},
			Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &errb, Profile: p})
		if err != nil {
			t.Fatalf("run %d: %v (stderr %q)", i, err, errb.String())
		}
		lines := strings.Split(out.String(), "\n")
		if res.ExitCode != 7 || len(lines) < 3 || lines[0] != "2" || lines[1] == hostNet || lines[2] != "CapEff:0000000000000000" || errb.String() != "err\n" {
			t.Errorf("run %d: exit %d, output %q, stderr %q; want 7, pid 2, a network namespace of its own, no capability, err",
				i, res.ExitCode, out.String(), errb.String())
		}
	}
	if got := r.cache.pool.used.Load(); got != 3 {
		t.Errorf("helpers started ahead served %d of 3 runs", got)
	}
	if after := nsFDs(t); after != before {
		t.Errorf("%d namespace descriptors open after the runs, %d before", after, before)
	}
}

// TestPrestartedGoAheadAfterMountNS: a prestarted helper whose mount
// namespace the runner never read (a one-shot run does not take it) still
// gets its go-ahead: closing the socket with that message unread would
// reset the helper's end, and its wait for the go-ahead fail.
func TestPrestartedGoAheadAfterMountNS(t *testing.T) {
	requireRoot(t, "without root the helper's namespaces need a user namespace")
	pre := startedAhead(t, unix.CLONE_NEWNS|unix.CLONE_NEWIPC)
	// Its namespaces made and its mount namespace sent, unread.
	var readable bool
	for deadline := time.Now().Add(5 * time.Second); !readable && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		conn, err := pre.sock.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		conn.Control(func(fd uintptr) {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, 0)
			readable = err == nil && n > 0
		})
	}
	if !readable {
		t.Fatal("the helper sent nothing")
	}
	if code, rep := goAhead(t, pre, withDev(t, helperSpec{Path: "/bin/true", Argv: []string{"true"}, Unshare: unix.CLONE_NEWNS | unix.CLONE_NEWIPC})); code != 0 {
		t.Errorf("exit %d, report %q; want the command's 0", code, rep)
	}
}

// TestPrestartedReadyBeforeGoAhead: a prestarted helper handed its spec
// runs nothing until the go-ahead, which follows ready (the runner's git
// scan): the command's file is not there while ready waits, and is once
// the helper has ended. With a PID namespace the helper is its init, and
// forks and binds the target before the go-ahead, which the target waits
// for itself.
func TestPrestartedReadyBeforeGoAhead(t *testing.T) {
	requireRoot(t, "without root the helper's namespaces need a user namespace")
	for _, unshare := range []uint32{unix.CLONE_NEWNS | unix.CLONE_NEWIPC, unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWPID} {
		t.Run(fmt.Sprintf("pidns=%v", unshare&unix.CLONE_NEWPID != 0), func(t *testing.T) {
			readyBeforeGoAhead(t, unshare)
		})
	}
}

func readyBeforeGoAhead(t *testing.T, unshare uint32) {
	pre := startedAhead(t, unshare)
	spec, out := writerSpec(t, unshare)
	readied := false
	ready := func() {
		readied = true
		// Long enough for a helper that did not wait to have run it.
		time.Sleep(200 * time.Millisecond)
		if _, err := os.Stat(out); err == nil {
			t.Errorf("the command ran before the go-ahead")
		}
	}
	if code, rep := goAheadAfter(t, pre, spec, ready); code != 0 {
		t.Errorf("exit %d, report %q; want the command's 0", code, rep)
	}
	if !readied {
		t.Error("ready was not called")
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "ran\n" {
		t.Errorf("the command's file: %q, %v", b, err)
	}
}

// TestPrestartedEndWithoutGoAhead: a runner that ends what it writes
// after the spec, without the go-ahead (killed during its git scan), has
// the prestarted helper start nothing, with a PID namespace too, where
// the target itself waits for the go-ahead: the end is not taken for it.
func TestPrestartedEndWithoutGoAhead(t *testing.T) {
	requireRoot(t, "without root the helper's namespaces need a user namespace")
	for _, unshare := range []uint32{unix.CLONE_NEWNS | unix.CLONE_NEWIPC, unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWPID} {
		t.Run(fmt.Sprintf("pidns=%v", unshare&unix.CLONE_NEWPID != 0), func(t *testing.T) {
			pre := startedAhead(t, unshare)
			spec, out := writerSpec(t, unshare)
			// As the runner's death would: its end, in ready, before
			// the go-ahead that send then fails to write.
			code, rep := goAheadAfter(t, pre, spec, func() { shutdownWrite(pre.sock) })
			if code != helperFail || !strings.Contains(rep, "ended without its go-ahead") {
				t.Errorf("exit %d, report %q; want %d, the go-ahead missing", code, rep, helperFail)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("the command ran without the go-ahead")
			}
		})
	}
}

// startedAhead starts a one-shot run's helper ahead for namespaces
// unshare, ended (killed if still running, reaped) with the test.
func startedAhead(t *testing.T, unshare uint32) *prestarted {
	t.Helper()
	pre := (&Runner{}).startAhead(prestartKey{unshare: unshare}, nil, sandbox.BuildCache{})
	if pre == nil {
		t.Fatal("the helper did not start")
	}
	t.Cleanup(pre.end)
	return pre
}

// writerSpec is the spec, for namespaces unshare, of a command that
// writes "ran" to out.
func writerSpec(t *testing.T, unshare uint32) (spec helperSpec, out string) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "out")
	return withDev(t, helperSpec{Path: "/bin/sh", Argv: []string{"sh", "-c", `echo ran > "$0"`, out}, Unshare: unshare}), out
}

// goAhead gives the prestarted helper pre the run of spec and waits for
// it to end: its exit code and its report.
func goAhead(t *testing.T, pre *prestarted, spec helperSpec) (int, string) {
	t.Helper()
	return goAheadAfter(t, pre, spec, nil)
}

// goAheadAfter is goAhead calling ready before the go-ahead.
func goAheadAfter(t *testing.T, pre *prestarted, spec helperSpec, ready func()) (int, string) {
	t.Helper()
	return goAheadSending(t, pre, spec, nil, ready)
}

// goAheadSending is goAheadAfter sending egress (nil: none) as the run's
// egress socket.
func goAheadSending(t *testing.T, pre *prestarted, spec helperSpec, egress *os.File, ready func()) (int, string) {
	t.Helper()
	data, err := spec.encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := pre.send([3]*os.File{}, nil, egress, data, ready); err != nil {
		t.Fatal(err)
	}
	pre.proc.rep = pre.rep
	done := make(chan error, 1)
	go func() {
		if pre.proc.WaitEnd() {
			// It exits once its socket is closed (linger).
			pre.sock.Close()
		}
		done <- pre.proc.Wait()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		pre.proc.Kill()
		t.Fatal("the helper did not end")
	}
	pre.done()
	pre.sock.Close()
	rep := pre.proc.Report()
	pre.rep.Close()
	ws, _ := pre.proc.Status()
	code := ws.ExitStatus()
	rep, end, ended, err := splitEnd(rep)
	if err != nil {
		t.Fatal(err)
	}
	if ended {
		code, _ = sandbox.WaitExitStatus(end)
	}
	return code, string(rep)
}

// TestLeaveToExit: a one-shot run of a Runner that leaves to the process's
// exit what a run's end would close or remove only to drop it leaves the
// runner's end of the helper's socket open, the run's mount namespace in
// it, and its placeholder set aside for the exit to remove, its path
// free, and asks the exit to leave the unmapping of the memory to its
// holder too; one that does not leaves nothing open and nothing behind.
func TestLeaveToExit(t *testing.T) {
	requireLandlock(t)
	p := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true,
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64}}
	var own unix.Stat_t
	if err := unix.Stat("/proc/self/ns/mnt", &own); err != nil {
		t.Fatal(err)
	}
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("LeaveToExit=%v", leave), func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			p := *p
			p.Write, p.Protect = []string{ws}, []string{filepath.Join(ws, ".gatedexec")}
			before := fdsOf(t, "socket:[")
			r := &Runner{}
			if leave {
				r.LeaveToExit = &exitunmap.Leave{}
			}
			res, err := r.Run(context.Background(), &Command{Argv: []string{"true"}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Profile: &p})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: %v, %+v", err, res)
			}
			if got := r.cache.pool.used.Load(); got != 1 {
				t.Fatalf("a helper started ahead served %d of 1 run", got)
			}
			if leave && !r.LeaveToExit.HoldsMemory() {
				t.Error("the run did not ask the exit to leave the unmapping of the process's memory to its holder")
			}
			var names []string
			if ents, err := os.ReadDir(ws); err == nil {
				for _, e := range ents {
					names = append(names, e.Name())
				}
			}
			var want []string
			if leave {
				want = []string{asidePrefix + ".gatedexec"}
			}
			if !slices.Equal(names, want) {
				t.Errorf("after the run the workspace holds %q, want %q", names, want)
			}
			var left []int
			for fd := range fdsOf(t, "socket:[") {
				if !before[fd] {
					left = append(left, fd)
				}
			}
			if !leave {
				if len(left) != 0 {
					t.Errorf("sockets %v left open after the run", left)
				}
				return
			}
			if len(left) != 1 {
				t.Fatalf("sockets %v left open after the run, want the helper's", left)
			}
			pre := &prestarted{sock: os.NewFile(uintptr(left[0]), "left")}
			defer pre.sock.Close()
			ns, err := pre.holdMountNS(own.Ino)
			if err != nil || ns == nil {
				t.Fatalf("the socket left open holds no mount namespace of the run's: %v", err)
			}
			ns.Close()
		})
	}
}

// TestEndBeforeExit: a prestarted helper that is its PID namespace's init
// says its run has ended once every process of the namespace is gone,
// having closed its copies of the command's descriptors: the run's result
// comes, a pipe the command wrote to ends with it, and nothing the
// command left behind runs on. A one-shot Runner that leaves to the
// exit (LeaveToExit) has its result while that helper still waits for
// the runner's socket to close (linger); any other reaps it first.
func TestEndBeforeExit(t *testing.T) {
	requireLandlock(t)
	requireRoot(t, "a prestarted helper is its PID namespace's init only when cloned into it as root")
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("LeaveToExit=%v", leave), func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			p := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
				Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64}}
			r := &Runner{}
			if leave {
				r.LeaveToExit = &exitunmap.Leave{}
			}
			before := prestartedChildren(t)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			res, err := r.Run(context.Background(), &Command{
				Argv: []string{"sh", "-c", "(sleep 0.3; echo late > late) & echo out; exit 7"},
				Dir:  ws, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: pw, Profile: p,
			})
			pw.Close()
			if err != nil || res.ExitCode != 7 || res.Signal != 0 {
				t.Fatalf("run: %v, %+v; want exit 7", err, res)
			}
			if got := r.cache.pool.used.Load(); got != 1 {
				t.Fatalf("a helper started ahead served %d of 1 run", got)
			}
			var lingering []int
			for _, pid := range prestartedChildren(t) {
				if !slices.Contains(before, pid) && !zombie(pid) {
					lingering = append(lingering, pid)
				}
			}
			t.Cleanup(func() {
				for _, pid := range lingering {
					unix.Kill(pid, unix.SIGKILL)
					var ws unix.WaitStatus
					unix.Wait4(pid, &ws, 0, nil)
				}
			})
			if want := map[bool]int{false: 0, true: 1}[leave]; len(lingering) != want {
				t.Errorf("helpers %v left running after the run, want %d", lingering, want)
			}
			out := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(pr)
				out <- b
			}()
			select {
			case b := <-out:
				if string(b) != "out\n" {
					t.Errorf("stdout %q, want %q", b, "out\n")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the command's stdout did not end with its run")
			}
			time.Sleep(500 * time.Millisecond)
			if _, err := os.Stat(filepath.Join(ws, "late")); err == nil {
				t.Error("a process the command left behind ran on after the run ended")
			}
		})
	}
}

// TestPrestartedFailsBeforeSpec: a prestarted helper that ends before its
// spec, saying why on the report pipe (its namespaces, its /dev made
// ahead), fails the run with what it said, as one that fails after its
// spec does: a strict profile's run is refused for the layer, whatever
// the socket the runner was writing to.
func TestPrestartedFailsBeforeSpec(t *testing.T) {
	requireLandlock(t)
	exe := filepath.Join(t.TempDir(), "helper")
	script := fmt.Sprintf("#!/bin/sh\nprintf '%s /dev: tmpfs: not here' >&%d\nexit %d\n", reportNamespaces, errFD, helperFail)
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	p := &sandbox.Profile{Name: "t", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Protect: []string{filepath.Join(ws, ".git")}, Network: sandbox.NetworkOff, UnixSockets: true}
	for range 3 {
		_, err := (&Runner{Exe: exe}).Run(context.Background(), &Command{Argv: []string{"true"}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Profile: p})
		if !errors.Is(err, sandbox.ErrLayerUnavailable) || !strings.Contains(err.Error(), "/dev: tmpfs: not here") {
			t.Fatalf("Run = %v; want the helper's report, and the layer unavailable", err)
		}
	}
}
