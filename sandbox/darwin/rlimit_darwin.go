//go:build darwin

package darwin

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// helperArg0 is the argv[0] under which the gatedexec binary re-executes
// itself to set rlimits before exec'ing sandbox-exec: darwin's
// SysProcAttr has no rlimits, and setting them in gatedexec itself would
// limit gatedexec (RLIMIT_CPU, RLIMIT_AS) and race with its threads.
const helperArg0 = "gatedexec-darwin-rlimit"

var rlimitResources = map[string]int{
	"nofile": syscall.RLIMIT_NOFILE,
	"nproc":  8, // RLIMIT_NPROC; absent from package syscall on darwin
	"fsize":  syscall.RLIMIT_FSIZE,
	"cpu":    syscall.RLIMIT_CPU,
	"as":     syscall.RLIMIT_AS,
}

func init() {
	if len(os.Args) == 0 || os.Args[0] != helperArg0 {
		return
	}
	// Never return into gatedexec's main: exec the command or exit 125.
	if err := rlimitHelper(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gatedexec: rlimit helper:", err)
		os.Exit(125)
	}
}

func rlimitHelper(args []string) error {
	for len(args) > 0 && args[0] != "--" {
		name, val, _ := strings.Cut(args[0], "=")
		res, ok := rlimitResources[name]
		if !ok {
			return fmt.Errorf("unknown limit %q", args[0])
		}
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return fmt.Errorf("limit %q: %w", args[0], err)
		}
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			return fmt.Errorf("setrlimit %s=%d: %w", name, n, err)
		}
		args = args[1:]
	}
	if len(args) < 2 {
		return fmt.Errorf("no command after --")
	}
	return syscall.Exec(args[1], args[1:], os.Environ())
}
