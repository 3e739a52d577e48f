package approval

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
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
		err = helperSessionAdd(os.Getenv("HELPER_DIR"), n)
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

// helperCmd returns a command re-running this test binary as a helper.
func helperCmd(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode}, env...)...)
	return cmd
}
