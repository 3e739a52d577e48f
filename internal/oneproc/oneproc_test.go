package oneproc

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// childEnv makes the test binary print its GOMAXPROCS and exit, started
// with the arguments of a gatedexec command line (TestInit).
const childEnv = "GATEDEXEC_ONEPROC_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		fmt.Println(runtime.GOMAXPROCS(0))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSupervisesRun checks that the processor count is set for a
// sandboxed run, named first, and for no other.
func TestSupervisesRun(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"run", "--", "true"}, true},
		{[]string{"sandbox", "-p", "read-only", "--", "true"}, true},
		{[]string{"check", "--", "run"}, false},
		{[]string{"version"}, false},
		{[]string{"mcp"}, false},
		{[]string{"--help", "run"}, false},
		{nil, false},
	} {
		if got := SupervisesRun(c.args); got != c.want {
			t.Errorf("SupervisesRun(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestInit checks that a process started as `gatedexec sandbox ...` runs
// with one processor from its start, and one started as `gatedexec check
// ...` with the runtime's default.
func TestInit(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	procs := func(args ...string) int {
		t.Helper()
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("%q: output %q: %v", args, out, err)
		}
		return n
	}
	if got := procs("sandbox", "--", "true"); got != 1 {
		t.Errorf("started as sandbox: GOMAXPROCS %d, want 1", got)
	}
	if got, want := procs("check", "--", "true"), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("started as check: GOMAXPROCS %d, want the default %d", got, want)
	}
}
