// Package oneproc gives the Go scheduler one processor, from package
// initialisation on, when gatedexec was started to supervise one
// sandboxed command (run, sandbox). cmd/gatedexec imports it for that
// effect alone.
//
// Such a start's Go work is one goroutine at a time. With a processor for
// each CPU, the runtime woke threads on the other CPUs, where the sandbox
// helper and the command run, for every goroutine it readied: 0.13-0.20 ms
// of a sandboxed /bin/true on a 2-vCPU VM. Set here, as soon as os.Args is
// there and before most packages' initialisation, rather than first in
// main: another 0.036 ms (in turns run by run, `sandbox -p
// workspace-write`). The other commands (check, version) lose more to the
// call, which stops the world (0.08-0.12 ms), than they gain, and the MCP
// server serves runs at once: they keep the default.
package oneproc

import (
	"os"
	"runtime"
)

func init() {
	if SupervisesRun(os.Args[1:]) {
		runtime.GOMAXPROCS(1)
	}
}

// SupervisesRun reports whether args, a command line less the program,
// name a command that runs one sandboxed command and waits for it.
func SupervisesRun(args []string) bool {
	return len(args) > 0 && (args[0] == "run" || args[0] == "sandbox")
}
