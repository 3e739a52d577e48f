package oneproc

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEntry: a program linked with the entry point and started to
// supervise a run (its first argument run or sandbox) starts the Go
// runtime bound to one CPU (its NumCPU, counted at the runtime's start,
// is 1), and every thread of it, and a process it starts, then has the
// CPUs the program was started with: all of the test's, or the one CPU a
// caller bound it to. Started for anything else, the entry binds nothing.
func TestEntry(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "entry")
	build := exec.Command("go", "build", "-ldflags", "-E "+EntrySymbol, "-o", bin, "./testdata/entry")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		t.Fatal(err)
	}
	cpus := setCPUs(&mine)
	for _, args := range [][]string{{"run"}, {"sandbox", "-p", "x"}} {
		checkEntry(t, bin, args, cpus, 1)
	}
	for _, args := range [][]string{nil, {"version"}, {"runx"}, {"sandboxes"}, {"ru"}} {
		checkEntry(t, bin, args, cpus, len(cpus))
	}
	// Started bound to one CPU, the program keeps that one: the last, so
	// that on a host with more than one it is not CPU 0. The program is
	// started from this goroutine's thread, bound to it meanwhile.
	last := cpus[len(cpus)-1]
	var one unix.CPUSet
	one.Set(last)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetaffinity(0, &mine)
	checkEntry(t, bin, []string{"run"}, []int{last}, 1)
	checkEntry(t, bin, []string{"check"}, []int{last}, 1)
}

// checkEntry runs the program bin with args and checks that it reported
// the runtime started on numCPU CPUs and every thread and its child on
// cpus.
func checkEntry(t *testing.T, bin string, args []string, cpus []int, numCPU int) {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %q (started on CPUs %s): %v", bin, args, cpuList(cpus), err)
	}
	want := cpuList(cpus)
	threads := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		what, v, _ := strings.Cut(l, " ")
		switch what {
		case "numcpu":
			if v != strconv.Itoa(numCPU) {
				t.Errorf("%q, started on CPUs %s: the runtime started with %s CPUs, want %d", args, want, v, numCPU)
			}
		case "thread":
			threads++
			if v != want {
				t.Errorf("started on CPUs %s: a thread may run on CPUs %s", want, v)
			}
		case "child":
			if v != want {
				t.Errorf("started on CPUs %s: a child may run on CPUs %s", want, v)
			}
		}
	}
	if threads == 0 || !strings.Contains(string(out), "child ") {
		t.Errorf("output %q: want the threads and the child", out)
	}
}

// setCPUs returns the CPUs in s, in order.
func setCPUs(s *unix.CPUSet) []int {
	var cpus []int
	for c := 0; len(cpus) < s.Count(); c++ {
		if s.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// cpuList writes cpus as the kernel's lists do ("0-3,5").
func cpuList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i])+"-"+strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
