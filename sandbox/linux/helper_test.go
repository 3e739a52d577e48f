//go:build linux

package linux

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runHelper starts this test binary as the helper with spec on its spec fd
// and returns its exit status and what it wrote on the report pipe.
func runHelper(t *testing.T, spec []byte) (int, string, string) {
	t.Helper()
	specR, specW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd := exec.Command("/proc/self/exe", HelperArg)
	cmd.Args[0] = "gatedexec-sandbox"
	cmd.ExtraFiles = []*os.File{specR, repW}
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	specR.Close()
	repW.Close()
	specW.Write(spec)
	specW.Close()
	report := new(bytes.Buffer)
	report.ReadFrom(repR)
	repR.Close()
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, report.String(), stdout.String()
}

// record is one wire-format record, for building hostile specs by hand.
func record(tag byte, payload string) []byte {
	b := []byte{tag}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func TestHelperSpec(t *testing.T) {
	good, err := (&helperSpec{Path: "/bin/echo", Argv: []string{"echo", "ran", "a b"}, Env: []string{"A=1"}}).encode()
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
		{"good", good, 0, "", "ran a b\n"},
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
		{"not found", cat(magic, record(tagPath, "/no/such/program"), record(tagArg, "x")), 127, "notfound ", ""},
		{"cannot exec", cat(magic, record(tagPath, "/etc/hostname"), record(tagArg, "x")), 126, "cannotexec ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, report, stdout := runHelper(t, tt.spec)
			if code != tt.code {
				t.Errorf("exit %d, want %d (report %q)", code, tt.code, report)
			}
			if tt.report == "" && report != "" || !strings.HasPrefix(report, tt.report) {
				t.Errorf("report %q, want prefix %q", report, tt.report)
			}
			if stdout != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
		})
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
