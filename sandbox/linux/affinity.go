//go:build linux

package linux

import (
	"math"
	"slices"
	"strconv"
	"strings"
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
// process's CPUs but the one the calling thread runs on, when those have
// room for it (asideCPUs). Best effort: a helper left where it was only
// starts later.
func moveAside(pid int) {
	if aside, ok := asideNow(); ok {
		unix.SchedSetaffinity(pid, &aside)
	}
}

// asideNow returns the CPUs moveAside would restrict a helper started
// now to, and whether it would (asideCPUs).
func asideNow() (unix.CPUSet, bool) {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return set, false
	}
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return set, false
	}
	return asideCPUs(set, int(cpu), runnableTasks())
}

// asideCPUs returns cpus less cpu, the one the runner is on, when the
// others have room for a helper: no more tasks runnable on the host
// (runnable, the helper and the runner among them) than the runner has
// CPUs. On a busy CPU the helper would wait for its turn instead: with one
// of two CPUs running another program, a sandboxed /bin/true took 1 ms
// longer moved aside. False leaves the helper where it is.
func asideCPUs(cpus unix.CPUSet, cpu, runnable int) (unix.CPUSet, bool) {
	if cpus.Count() < 2 || runnable > cpus.Count() || !cpus.IsSet(cpu) {
		return cpus, false
	}
	cpus.Clear(cpu)
	return cpus, true
}

// runnableTasks returns how many tasks are runnable on the host now, the
// count before the slash of /proc/loadavg's fourth field; a count no
// runner has CPUs for when it cannot be read.
func runnableTasks() int {
	fd, err := unix.Open("/proc/loadavg", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return math.MaxInt
	}
	defer unix.Close(fd)
	var buf [128]byte
	n, err := unix.Read(fd, buf[:])
	if err != nil {
		return math.MaxInt
	}
	return parseRunnable(string(buf[:max(n, 0)]))
}

// parseRunnable is runnableTasks' reading of a /proc/loadavg line
// ("0.42 1.10 1.43 1/112 21462"): math.MaxInt for anything else.
func parseRunnable(line string) int {
	f := strings.Fields(line)
	if len(f) < 4 {
		return math.MaxInt
	}
	r, _, ok := strings.Cut(f[3], "/")
	n, err := strconv.Atoi(r)
	if !ok || err != nil || n < 0 {
		return math.MaxInt
	}
	return n
}
