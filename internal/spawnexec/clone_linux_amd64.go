//go:build linux && amd64

package spawnexec

// Supported says whether Start can start a child here.
const Supported = true

// clone clones a child that shares this process's memory, with flags, on
// the stack it is given (its top), and returns its pid or a negated
// errno. The child follows the plan: it moves to the plan's CPUs, makes a
// session of its own when asked, takes SIGKILL as its death signal,
// places the plan's descriptors at their numbers and execs the plan's
// program, every signal blocked; on a failure it writes the errno to the
// plan's status descriptor and exits 127.
func clone(plan, stack uintptr, flags uint64) int64
