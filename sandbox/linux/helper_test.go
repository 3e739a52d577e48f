//go:build linux && cgo

package linux

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// testHelper returns the helper built into the test binary, for selfFD;
// a build without it fails the test (make build compiles it).
func testHelper(t testing.TB) *os.File {
	t.Helper()
	h, err := sealedHelper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// record is one wire-format record, for building hostile specs by hand.
func record(tag byte, payload string) []byte {
	b := []byte{tag}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func TestHelperSpec(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	good, err := (&helperSpec{Path: "/bin/sh", Argv: []string{"sh", "-c", `echo "$A" ran "$1" > "$0"`, out, "a b"},
		Env: []string{"A=1"}}).encode()
	if err != nil {
		t.Fatal(err)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	magic := []byte("GXH1")
	cmdRecs := cat(record(tagPath, "/bin/echo"), record(tagArg, "echo"), record(tagArg, "ran"))
	tests := []struct {
		name   string
		spec   []byte
		code   int
		report string // prefix; "" means the exec succeeded
		stdout string
	}{
		{"good", good, 0, "", "1 ran a b\n"},
		{"empty", nil, helperFail, "setup decoding spec: bad magic", ""},
		{"bad magic", cat([]byte("GXH0"), cmdRecs), helperFail, "setup decoding spec: bad magic", ""},
		{"truncated header", cat(magic, cmdRecs, []byte{tagArg, 1, 0}), helperFail, "setup decoding spec: truncated record header", ""},
		{"overrun", cat(magic, cmdRecs, []byte{tagArg, 0xff, 0xff, 0, 0, 'x'}), helperFail, "setup decoding spec: record a of 65535 bytes overruns", ""},
		{"unknown record", cat(magic, cmdRecs, record('Z', "")), helperFail, "setup decoding spec: unknown record Z", ""},
		{"NUL in argument", cat(magic, cmdRecs, record(tagArg, "a\x00b")), helperFail, "setup decoding spec: NUL byte", ""},
		{"no command", cat(magic, record(tagArg, "echo")), helperFail, "setup decoding spec: no command", ""},
		{"short rlimit", cat(magic, cmdRecs, record(tagRlimit, "1234")), helperFail, "setup decoding spec: bad rlimit record", ""},
		{"bad seccomp length", cat(magic, cmdRecs, record(tagBPF, "12345")), helperFail, "setup decoding spec: seccomp program of 5 bytes", ""},
		{"mounts outside a private namespace", cat(magic, cmdRecs,
			record(tagParentMntNS, string(binary.LittleEndian.AppendUint64(nil, mustMntNS(t)))),
			record(tagMount, string([]byte{byte(mountEmptyDir)})+t.TempDir())),
			helperFail, "setup mount namespace: not a private namespace", ""},
		{"mounts without the runner's namespace", cat(magic, cmdRecs,
			record(tagMount, string([]byte{byte(mountEmptyDir)})+t.TempDir())),
			helperFail, "setup mount namespace: not a private namespace", ""},
		{"unknown mount kind", cat(magic, cmdRecs, record(tagMount, "\x09/tmp")), helperFail, "setup decoding spec: unknown mount kind 9", ""},
		{"bad close record", cat(magic, cmdRecs, record(tagCloseFDs, "x")), helperFail, "setup decoding spec: bad close record", ""},
		{"short unshare record", cat(magic, cmdRecs, record(tagUnshare, "12")), helperFail, "setup decoding spec: bad unshare record", ""},
		// CLONE_PARENT is invalid for unshare: the failure is reported as
		// a namespace one, which a best-effort profile may run without.
		{"unshare fails", cat(magic, cmdRecs, record(tagUnshare, string(binary.LittleEndian.AppendUint32(nil, unix.CLONE_PARENT)))),
			helperFail, reportNamespaces + " unshare: Invalid argument", ""},
		{"not found", cat(magic, record(tagPath, "/no/such/program"), record(tagArg, "x")), 127, reportNotFound + " ", ""},
		// A plain command whose exec fails: its bash -c runs instead.
		{"fallback", cat(magic, record(tagPath, "/no/such/program"), record(tagArg, "x"),
			record(tagFallbackPath, "/bin/sh"), record(tagFallbackArg, "sh"), record(tagFallbackArg, "-c"),
			record(tagFallbackArg, `echo fell back > "$0"`), record(tagFallbackArg, out)), 0, "", "fell back\n"},
		{"fallback not needed", cat(magic, record(tagPath, "/bin/sh"), record(tagArg, "sh"), record(tagArg, "-c"),
			record(tagArg, `echo ran > "$0"`), record(tagArg, out),
			record(tagFallbackPath, "/bin/sh"), record(tagFallbackArg, "sh"), record(tagFallbackArg, "-c"),
			record(tagFallbackArg, `echo fell back > "$0"`), record(tagFallbackArg, out)), 0, "", "ran\n"},
		{"fallback that fails too", cat(magic, record(tagPath, "/no/such/program"), record(tagArg, "x"),
			record(tagFallbackPath, "/etc/hostname"), record(tagFallbackArg, "x")), 126, reportCannotExec + " ", ""},
		{"fallback without arguments", cat(magic, cmdRecs, record(tagFallbackPath, "/bin/sh")), helperFail,
			"setup decoding spec: a fallback needs both", ""},
		{"fallback arguments without a path", cat(magic, cmdRecs, record(tagFallbackArg, "sh")), helperFail,
			"setup decoding spec: a fallback needs both", ""},
		{"two fallback paths", cat(magic, cmdRecs, record(tagFallbackPath, "/bin/sh"), record(tagFallbackPath, "/bin/sh"),
			record(tagFallbackArg, "sh")), helperFail, "setup decoding spec: duplicate record P", ""},
		{"cannot exec", cat(magic, record(tagPath, "/etc/hostname"), record(tagArg, "x")), 126, reportCannotExec + " ", ""},
		// The command gets the CPUs the spec names, whatever the helper's.
		{"affinity", cat(magic, record(tagPath, "/bin/sh"), record(tagArg, "sh"), record(tagArg, "-c"),
			record(tagArg, `grep Cpus_allowed_list /proc/self/status > "$0"`), record(tagArg, out),
			record(tagAffinity, "\x01\x00\x00\x00\x00\x00\x00\x00")), 0, "", "Cpus_allowed_list:\t0\n"},
		{"affinity of 3 bytes", cat(magic, cmdRecs, record(tagAffinity, "\x01\x00\x00")), helperFail,
			"setup decoding spec: bad CPU affinity record of 3 bytes", ""},
		{"affinity longer than a cpu_set_t", cat(magic, cmdRecs, record(tagAffinity, strings.Repeat("\xff", 136))), helperFail,
			"setup decoding spec: bad CPU affinity record of 136 bytes", ""},
		{"affinity without a CPU", cat(magic, cmdRecs, record(tagAffinity, strings.Repeat("\x00", 8))), helperFail,
			"setup decoding spec: CPU affinity record without a CPU", ""},
	}
	helper := testHelper(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(out)
			// runHelperSpec gives the command no stdout; the good
			// case shows it ran through the file it writes.
			code, report, err := runHelperSpec(helper, tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			stdout, _ := os.ReadFile(out)
			if code != tt.code {
				t.Errorf("exit %d, want %d (report %q)", code, tt.code, report)
			}
			if tt.report == "" && report != "" || !strings.HasPrefix(report, tt.report) {
				t.Errorf("report %q, want prefix %q", report, tt.report)
			}
			// The decoder alone, in-process, agrees with the helper.
			_, derr := checkSpec(tt.spec)
			if want, ok := strings.CutPrefix(tt.report, "setup decoding spec: "); ok {
				if derr == nil || !strings.HasPrefix(derr.Error(), want) {
					t.Errorf("checkSpec = %v, want prefix %q", derr, want)
				}
			} else if derr != nil {
				t.Errorf("checkSpec = %v, want the spec to decode", derr)
			}
			if string(stdout) != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
		})
	}
}

// TestHelperCloseFDs: a descriptor the helper inherits above its own
// reaches the command only without CloseFDs.
func TestHelperCloseFDs(t *testing.T) {
	for _, closeFDs := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out")
		spec, err := (&helperSpec{Path: "/bin/sh", CloseFDs: closeFDs,
			Argv: []string{"sh", "-c", `if [ -e /proc/self/fd/9 ]; then echo open; else echo closed; fi > "$0"`, out}}).encode()
		if err != nil {
			t.Fatal(err)
		}
		inherited, err := os.Open("/")
		if err != nil {
			t.Fatal(err)
		}
		defer inherited.Close()
		specR, specW, repR, repW := helperPipes(t)
		cmd := &exec.Cmd{Path: selfPath, Args: []string{"gatedexec-sandbox", HelperArg},
			ExtraFiles: []*os.File{specR, repW, nil, nil, testHelper(t), nil, inherited}}
		if err := startHelper(cmd, specR, repW, specW, spec, nil, nil); err != nil {
			t.Fatal(err)
		}
		rep, _ := io.ReadAll(repR)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper: %v (report %q)", err, rep)
		}
		want := "open\n"
		if closeFDs {
			want = "closed\n"
		}
		if got, _ := os.ReadFile(out); string(got) != want {
			t.Errorf("CloseFDs=%v: descriptor 9 %q, want %q", closeFDs, got, want)
		}
	}
}

func mustMntNS(t *testing.T) uint64 {
	t.Helper()
	ns, err := mountNSInode()
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func TestHelperSpecEncodeRejectsNUL(t *testing.T) {
	for _, s := range []helperSpec{
		{Path: "/bin/true\x00x", Argv: []string{"true"}},
		{Path: "/bin/true", Argv: []string{"true", "a\x00"}},
		{Path: "/bin/true", Argv: []string{"true"}, Env: []string{"A=\x00"}},
		{Path: "/bin/true", Argv: []string{"true"}, Mounts: []mountOp{{Kind: mountPin, Path: "/tmp\x00/x"}}},
	} {
		if _, err := s.encode(); err == nil || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("encode(%+v) = %v, want a NUL error", s, err)
		}
	}
}

// TestHelperSpecSizes: the helper decodes every element of a spec's
// lists across the sizes its arrays grow at (8, 16, ...) and past its
// arena of 256 KiB, where the rest comes from malloc.
func TestHelperSpecSizes(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 16, 17, 1000, 40000} {
		argv := make([]string, n)
		for i := range argv {
			argv[i] = fmt.Sprintf("argument-%06d", i)
		}
		spec, err := (&helperSpec{Path: "/bin/true", Argv: argv, Env: argv}).encode()
		if err != nil {
			t.Fatal(err)
		}
		if argc, err := checkSpec(spec); err != nil || argc != n {
			t.Errorf("%d arguments (a spec of %d bytes): argc %d, %v", n, len(spec), argc, err)
		}
	}
}

// FuzzHelperSpec feeds the C decoder arbitrary specs (it must report an
// error or decode, never crash) and round-trips specs built from the
// inputs through encode.
func FuzzHelperSpec(f *testing.F) {
	good, _ := (&helperSpec{Path: "/bin/true", Argv: []string{"true", "x"}, Env: []string{"A=1"}, Dir: "/tmp",
		FallbackPath: "/bin/bash", FallbackArgv: []string{"bash", "-c", "true x"},
		Mounts: []mountOp{{Kind: mountPin, Path: "/tmp"}}, Rlimits: []rlimit{{Resource: 7, Value: 64}},
		Landlock: true, Unshare: 1, BPF: make([]byte, 16), Affinity: []byte{3, 0, 0, 0, 0, 0, 0, 0}}).encode()
	f.Add(good, "arg")
	f.Add([]byte("GXH1"), "")
	f.Add([]byte("GXH1p\x01\x00\x00\x00/a\x00\x00\x00\x00"), "a\x00b")
	f.Fuzz(func(t *testing.T, raw []byte, arg string) {
		checkSpec(raw)
		spec, err := (&helperSpec{Path: "/bin/true", Argv: []string{"true", arg}, Env: []string{arg}, Dir: arg}).encode()
		if err != nil {
			if !strings.Contains(arg, "\x00") {
				t.Fatalf("encode without NUL failed: %v", err)
			}
			return
		}
		argc, err := checkSpec(spec)
		if err != nil || argc != 2 {
			t.Fatalf("round trip: argc %d, err %v", argc, err)
		}
	})
}

// TestHelperHighDescriptors: the helper starts whatever numbers the
// runner's descriptors have. Starting a child, os/exec first moves its
// descriptors to the numbers above the highest it is given, so a helper
// exec'd by the runner's own number for its memfd found a pipe there when
// the runner had that many open (20 concurrent MCP calls). It is exec'd by
// selfFD, which the child places itself.
func TestHelperHighDescriptors(t *testing.T) {
	self := testHelper(t)
	high := func(f *os.File, fd int) *os.File {
		if err := unix.Dup3(int(f.Fd()), fd, unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		g := os.NewFile(uintptr(fd), f.Name())
		t.Cleanup(func() { g.Close() })
		return g
	}
	// The memfd at 400 in the runner, its highest descriptors given to
	// the child right below it: the child's first move lands on 400.
	runnerSelf := high(self, 400)
	for _, path := range []string{selfPath, fmt.Sprintf("/proc/self/fd/%d", runnerSelf.Fd())} {
		spec, err := (&helperSpec{Path: "/bin/true", Argv: []string{"true"}}).encode()
		if err != nil {
			t.Fatal(err)
		}
		specR, specW, repR, repW := helperPipes(t)
		hSpec, hRep := high(specR, 399), high(repW, 398)
		specR.Close()
		repW.Close()
		cmd := &exec.Cmd{Path: path, Args: []string{"gatedexec-sandbox", HelperArg},
			ExtraFiles: helperFiles(hSpec, hRep, nil, nil, self)}
		err = startHelper(cmd, hSpec, hRep, specW, spec, nil, nil)
		if err == nil {
			io.ReadAll(repR)
			err = cmd.Wait()
		}
		if path == selfPath && err != nil {
			t.Fatalf("helper by %s: %v", path, err)
		}
		if path != selfPath {
			// How it failed before: os/exec's own moves, not ours.
			t.Logf("helper by the runner's descriptor %s: %v", path, err)
		}
	}
}

// helperPipes returns the spec and report pipes of one helper start; the
// test's cleanup closes every end, whatever startHelper closed already.
func helperPipes(t *testing.T) (specR, specW, repR, repW *os.File) {
	t.Helper()
	specR, specW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	repR, repW, err = os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range []*os.File{specR, specW, repR, repW} {
			f.Close()
		}
	})
	return specR, specW, repR, repW
}

// runHelperFrame runs the helper with raw on its spec pipe, as sent,
// framing and all, and returns its exit status and report.
func runHelperFrame(t *testing.T, raw []byte) (int, string) {
	t.Helper()
	specR, specW, repR, repW := helperPipes(t)
	cmd := &exec.Cmd{Path: selfPath, Args: []string{"gatedexec-sandbox", HelperArg},
		ExtraFiles: helperFiles(specR, repW, nil, nil, testHelper(t))}
	specW.Write(raw)
	specW.Close()
	err := cmd.Start()
	repW.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := io.ReadAll(repR)
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(rep)
}

// TestHelperSpecFrame: the helper runs a spec only whole, as long as its
// length says, and with nothing after it: a spec cut at a record boundary
// would decode without the records (Landlock, seccomp) after the cut.
func TestHelperSpecFrame(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	spec, err := (&helperSpec{Path: "/bin/sh", Argv: []string{"sh", "-c", `echo ran > "$0"`, out}}).encode()
	if err != nil {
		t.Fatal(err)
	}
	frame := func(n int, body []byte) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, uint32(n)), body...)
	}
	cut := len(spec) - len(record(tagArg, out))
	tests := []struct {
		name   string
		raw    []byte
		code   int
		report string
	}{
		{"whole", append(frame(len(spec), spec), goAheadByte), 0, ""},
		{"no go-ahead", frame(len(spec), spec), helperFail, "setup waiting for the runner: it ended without its go-ahead"},
		{"data after the go-ahead", append(frame(len(spec), spec), goAheadByte, 'x'), helperFail, "setup reading spec: data after its end"},
		{"no length", nil, helperFail, "setup reading spec: cut short"},
		{"short length", []byte{1, 0}, helperFail, "setup reading spec: cut short"},
		{"cut at a record boundary", frame(len(spec), spec[:cut]), helperFail, "setup reading spec: cut short"},
		{"data after the end", append(frame(len(spec), spec), 'x'), helperFail, "setup reading spec: data after its end"},
		{"too large", frame(maxSpec+1, nil), helperFail, "setup reading spec: larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(out)
			code, report := runHelperFrame(t, tt.raw)
			if code != tt.code || !strings.HasPrefix(report, tt.report) || tt.report == "" && report != "" {
				t.Errorf("exit %d, report %q; want %d, %q", code, report, tt.code, tt.report)
			}
			_, err := os.Stat(out)
			if ran := err == nil; ran != (tt.code == 0) {
				t.Errorf("command ran: %v, want %v", ran, tt.code == 0)
			}
		})
	}
}

// TestHelperGoAhead: the helper starts nothing before the runner's
// go-ahead (its byte after the spec), which comes after started (the
// run's cgroups) and then ready (the git scan); an error from started
// kills the helper, ready is not called, and the command never runs.
func TestHelperGoAhead(t *testing.T) {
	for _, fail := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out")
		spec, err := (&helperSpec{Path: "/bin/sh", Argv: []string{"sh", "-c", `echo ran > "$0"`, out}}).encode()
		if err != nil {
			t.Fatal(err)
		}
		specR, specW, repR, repW := helperPipes(t)
		cmd := &exec.Cmd{Path: selfPath, Args: []string{"gatedexec-sandbox", HelperArg},
			ExtraFiles: helperFiles(specR, repW, nil, nil, testHelper(t))}
		var waited string
		started := func(pid int) error {
			// Until the helper blocks reading its spec pipe for the
			// go-ahead (read, on descriptor 3), bounded: a helper that
			// did not wait would have run the command by then.
			for range 500 {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", pid))
				if strings.HasPrefix(string(b), "0 0x3 ") {
					waited = string(b)
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("the command ran before the go-ahead")
			}
			kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
			if len(kids) > 0 {
				t.Errorf("the helper forked %q before the go-ahead", kids)
			}
			if fail {
				return errors.New("no cgroup")
			}
			return nil
		}
		var order []string
		readied := func() {
			order = append(order, "ready")
			if _, err := os.Stat(out); err == nil {
				t.Errorf("the command ran before ready")
			}
		}
		startedThen := func(pid int) error {
			order = append(order, "started")
			return started(pid)
		}
		err = startHelper(cmd, specR, repW, specW, spec, startedThen, readied)
		if waited == "" {
			t.Errorf("the helper never waited for the go-ahead")
		}
		if want := map[bool]string{false: "started ready", true: "started"}[fail]; strings.Join(order, " ") != want {
			t.Errorf("started failing %v: called %q, want %q", fail, order, want)
		}
		if fail {
			if err == nil || err.Error() != "no cgroup" {
				t.Errorf("startHelper = %v, want started's error", err)
			}
		} else {
			io.ReadAll(repR)
			if err != nil || cmd.Wait() != nil {
				t.Errorf("startHelper = %v, exit %v", err, cmd.ProcessState)
			}
		}
		if _, err := os.Stat(out); (err == nil) != !fail {
			t.Errorf("started failing %v: command ran %v", fail, err == nil)
		}
	}
}

// TestSplitEnd: a helper's end follows endMark and is the tag, a space,
// a wait status in decimal and a newline, the report before it kept;
// anything else after the mark is refused, naming what came; a report
// without the mark has no end and is kept whole.
func TestSplitEnd(t *testing.T) {
	for _, tt := range []struct {
		in, report string
		want       syscall.WaitStatus
		ended, ok  bool
	}{
		{"\x00end 0\n", "", 0, true, true},
		{"\x00end 768\n", "", 768, true, true}, // exit 3
		{"\x00end 10\n", "", 10, true, true},   // SIGUSR1
		{"notfound no such file\x00end 32512\n", "notfound no such file", 32512, true, true},
		{"setup boom", "setup boom", 0, false, true},
		{"", "", 0, false, true},
		{"\x00end 0", "", 0, true, false},
		{"\x00end\n", "", 0, true, false},
		{"\x00end -1\n", "", 0, true, false},
		{"\x00end 65536\n", "", 0, true, false},
		{"\x00end 0\nend 1\n", "", 0, true, false},
		{"\x00signal 9\n", "", 0, true, false},
		{"\x00", "", 0, true, false},
	} {
		report, got, ended, err := splitEnd([]byte(tt.in))
		if tt.ok != (err == nil) || got != tt.want || ended != tt.ended || string(report) != tt.report {
			t.Errorf("splitEnd(%q) = %q, %v, %v, %v; want %q, %v, %v, ok %v", tt.in, report, got, ended, err, tt.report, tt.want, tt.ended, tt.ok)
		}
		if err != nil && !errors.Is(err, sandbox.ErrLayerUnavailable) {
			t.Errorf("splitEnd(%q): %v, want ErrLayerUnavailable", tt.in, err)
		}
	}
}
