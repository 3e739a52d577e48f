package test

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestCLI runs the testscript files in testdata/scripts against the
// gatedexec binary built by TestMain, which is first on PATH.
func TestCLI(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/scripts",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			return nil
		},
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitcode},
		Condition:           condition,
		RequireExplicitExec: true,
	})
}

// condition adds [root] to the script conditions: what only root may do
// (write at /) runs only as root, and CI, which must run everything,
// fails rather than skips without it.
func condition(cond string) (bool, error) {
	if cond != "root" {
		return false, errors.New("unknown condition " + cond)
	}
	if os.Geteuid() != 0 && os.Getenv("CI") != "" {
		return false, errors.New("[root] scripts must run as root when CI is set")
	}
	return os.Geteuid() == 0, nil
}

// cmdExitcode implements "exitcode N PROG [ARG...]": run PROG like exec
// does (stdout and stderr are kept for the next stdout/stderr checks) and
// fail unless it exits with status N. Exit statuses are part of the CLI
// contract, and plain exec only tells zero from non-zero.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
