//go:build linux

package linux

import (
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A helper the runner starts is made to wait for a CPU: the runner's
// thread, woken once the helper has exec'd, takes back the CPU it forked
// on, and the scheduler keeps the helper, which has just run there,
// queued behind it (behind the runner's planning and git scan) while
// another CPU idles. What the helper does ahead of its run, its
// namespaces and mounts, then overlapped nothing: 0.36–0.45 ms of a
// sandboxed /bin/true on a 2-vCPU VM. So the runner moves each helper it
// starts off the CPU it is on (moveAside), and the helper gives the
// command the runner's CPUs back before its exec (helperSpec.Affinity):
// the command runs where gatedexec was allowed to.

// runnerCPUs returns the CPUs this process may run on, as the kernel's
// mask (the spec's Affinity), as they are when the run's spec is made
// (its helper may have been moved aside from those of its start); nil
// when the mask cannot be read.
func runnerCPUs() []byte {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return nil
	}
	return cpuMask(&set)
}

// cpuMask is set as sched_setaffinity(2) takes it, the memory of
// unix.CPUSet (an array of C longs), less its trailing longs with no CPU.
func cpuMask(set *unix.CPUSet) []byte {
	b := unsafe.Slice((*byte)(unsafe.Pointer(set)), unsafe.Sizeof(*set))
	long := int(unsafe.Sizeof(set[0]))
	n := len(b)
	for n >= long && !slices.ContainsFunc(b[n-long:n], func(c byte) bool { return c != 0 }) {
		n -= long
	}
	return slices.Clone(b[:n])
}

// moveAside restricts the process pid, a helper just started, to this
// process's CPUs but the one the calling thread runs on. Best effort: a
// helper left where it was only starts later.
func moveAside(pid int) {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil || set.Count() < 2 {
		return
	}
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return
	}
	set.Clear(int(cpu))
	unix.SchedSetaffinity(pid, &set)
}
