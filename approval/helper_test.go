package approval

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// helperEnv selects what a re-executed test binary does (see TestHelperProcess).
const helperEnv = "GATEDEXEC_APPROVAL_HELPER"

// TestHelperProcess is not a test: it is the child process of the
// multi-process tests, which re-run this test binary with helperEnv set.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process only")
	}
	n, _ := strconv.Atoi(os.Getenv("HELPER_N"))
	var err error
	switch mode {
	case "session-add":
		err = helperSessionAdd(os.Getenv("HELPER_PATH"), n)
	case "audit-write":
		err = helperAuditWrite(os.Getenv("HELPER_PATH"), n)
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

// runHelpers runs procs helper processes in mode on path, at most
// parallel at once, the p-th with HELPER_N=p, and fails t for each one
// that fails.
func runHelpers(t *testing.T, mode, path string, procs, parallel int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	sem := make(chan struct{}, parallel)
	for p := range procs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), helperEnv+"="+mode, "HELPER_PATH="+path, "HELPER_N="+strconv.Itoa(p))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child %d: %v: %s", p, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}
