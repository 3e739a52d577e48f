// Package oneproc gives the Go scheduler one processor: at the runtime's
// start for every gatedexec command, and from package initialisation on
// for one started to supervise one sandboxed command (run, sandbox).
// cmd/gatedexec imports it for that effect alone.
//
// The runtime sizes its scheduler by the CPUs the process may run on when
// it starts, and with a processor for each CPU it started threads on the
// other CPUs for the goroutines its own start readies (sysmon's, the
// garbage collector's), waking CPUs a VM had halted, and each thread was
// one more for the exit to end. Built as the Makefile builds it, with the
// runtime scripts/depatch patches and RuntimeFlag, the runtime starts
// with one processor whatever the CPUs. Before that patch, gatedexec's
// entry point (entry, linked with -E EntrySymbol on Linux amd64) bound
// the process to the CPU it started on before the runtime's entry ran,
// for the same end, and this package's initialisation gave every thread
// back the CPUs the process started with (restore), before any other
// package's initialisation or main could start a process or a thread
// that would inherit the one CPU. It now does so for run and sandbox
// alone, whose helper's start gains more from the binding than it costs
// (without it, in turns run by run on a 2-vCPU VM: `sandbox` with no
// mount plan +0.07 ms, workspace-write +0.015 ms, while `version` is
// 0.15 ms sooner and a cached `check` on 1 000 rules 0.18 ms). A command
// that runs long gets a processor per CPU when sysmon first sizes the
// scheduler (GODEBUG updatemaxprocs), at its first tick (1 ms, with the
// patched runtime), unless it set the count itself.
//
// A supervising start's Go work is one goroutine at a time. With a
// processor for each CPU, the runtime woke threads on the other CPUs,
// where the sandbox helper and the command run, for every goroutine it
// readied: 0.13-0.20 ms of a sandboxed /bin/true on a 2-vCPU VM. Set here
// (runtime.GOMAXPROCS), before most packages' initialisation, rather
// than first in main: another 0.036 ms (in turns run by run, `sandbox -p
// workspace-write`). Started with one processor, the count is 1 already
// and the call only keeps it there; started otherwise (a plain go build),
// the call stops the world, which costs the other commands (check,
// version) more (0.08-0.12 ms) than they gain, and the MCP server serves
// runs at once: they keep the runtime's count.
package oneproc

import (
	"os"
	"runtime"
)

// RuntimeFlag is the linker flag (go build -ldflags) that starts the Go
// runtime scripts/depatch patches with one processor, whatever the
// process's CPUs; the Makefile's ONEPROC. Without depatch's overlay the
// linker ignores it.
const RuntimeFlag = "-X runtime.oneProcStart=1"

func init() {
	restore()
	if SupervisesRun(os.Args[1:]) {
		runtime.GOMAXPROCS(1)
	}
}

// SupervisesRun reports whether args, a command line less the program,
// name a command that runs one sandboxed command and waits for it.
func SupervisesRun(args []string) bool {
	return len(args) > 0 && (args[0] == "run" || args[0] == "sandbox")
}
