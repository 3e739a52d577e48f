// Command start reports what the Go runtime's start left behind, for
// TestRuntimePatches: the threads at main, the CPU cgroup's files the
// runtime holds open, the threads after a system call of 0.3 ms and one
// of 5 ms (sysmon starts a thread to take over a processor held by a
// system call, with nothing to run, when it has none idle), the cgroup's
// files after the runtime sized GOMAXPROCS again for the CPUs the
// process was started with, the CPU features internal/cpu found, how
// many of the heap objects only its data and bss point to a collection
// keeps, whether conversions to an interface at run time found the
// itabs the linker made, and how many of its heap's first pages are
// resident at main in a row.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"
	"weak"

	_ "github.com/gatedexec/gatedexec/internal/oneproc"
)

func main() {
	// First: what of the heap the start left resident.
	heap := heapRun()
	// Then the runtime's first lookup of an itab.
	itabs := linkerItabs()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("threads", len(tasks))
	fmt.Println("cgroup", cgroupFiles())
	fmt.Println("threads-short", threadsAfter(300*time.Microsecond))
	fmt.Println("threads-long", threadsAfter(5*time.Millisecond))
	runtime.SetDefaultGOMAXPROCS()
	fmt.Println("cgroup-after", cgroupFiles())
	fmt.Println("gomaxprocs", runtime.GOMAXPROCS(0))
	fmt.Println("cpu", fmt.Sprint(x86Features[64:]))
	fmt.Println("gc-roots", gcRoots())
	fmt.Println("itabs", itabs)
	fmt.Println("heap-run", heap)
}

// heapRun returns how many pages of the heap's mapping (the one that
// holds a new heap object, as /proc/self/smaps says) are resident in a
// row from its first resident one: the first pages the heap handed out,
// populated at once or, with holes, touched one by one. 0 when it cannot
// be read.
func heapRun() int {
	p := uintptr(unsafe.Pointer(new([64]byte)))
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(l, "%x-%x ", &lo, &hi); n != 2 || p < lo || p >= hi {
			continue
		}
		vec := make([]byte, (hi-lo)/uintptr(os.Getpagesize()))
		if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			return 0
		}
		run, started := 0, false
		for _, v := range vec {
			switch {
			case v&1 != 0:
				started = true
				run++
			case started:
				return run
			}
		}
		return run
	}
	return 0
}

// shape and square: the linker makes the itab of (shape, square) for
// staticShape, and none for (shape, circle).
type (
	shape  interface{ Area() int }
	square struct{ side int }
	circle struct{ r int }
)

func (s square) Area() int { return s.side * s.side }
func (c circle) Area() int { return 3 * c.r * c.r }

var (
	staticShape shape = square{3}
	boxed             = []any{square{3}, circle{2}, 5}
)

// linkerItabs converts values of three types to shape at run time, and
// says whether each gave the answer it must: square the linker's itab
// (interface comparison compares itab pointers first, so one made at run
// time for the same pair would make staticShape unequal to the same
// value), circle a working one, an int none.
func linkerItabs() string {
	sq, okSq := boxed[0].(shape)
	ci, okCi := boxed[1].(shape)
	_, okInt := boxed[2].(shape)
	return fmt.Sprintf("%t,%t,%t", okSq && sq == staticShape, okCi && ci.Area() == 12, !okInt)
}

// dataRoots (in data: it has a value) and bssRoots (in bss) are the only
// pointers to the objects gcRoots makes.
var (
	dataRoots = []*[256]byte{nil, nil, nil, nil, nil, nil, nil, nil}
	bssRoots  [8]*[256]byte
)

// gcRoots points dataRoots and bssRoots at new objects, collects three
// times, allocating between, and returns how many of them are still
// there, and intact, of how many: a collection that did not scan data and
// bss would have freed them.
func gcRoots() string {
	var weaks []weak.Pointer[[256]byte]
	for i := range dataRoots {
		dataRoots[i], bssRoots[i] = new([256]byte), new([256]byte)
		for _, p := range []*[256]byte{dataRoots[i], bssRoots[i]} {
			for j := range p {
				p[j] = byte(i + 1)
			}
			weaks = append(weaks, weak.Make(p))
		}
	}
	var churn [][256]byte
	for range 3 {
		runtime.GC()
		churn = append(churn, make([][256]byte, 4096)...)
	}
	kept := 0
	for k, w := range weaks {
		p := w.Value()
		if p == nil {
			continue
		}
		intact := true
		for _, b := range p {
			intact = intact && b == byte(k/2+1)
		}
		if intact {
			kept++
		}
	}
	runtime.KeepAlive(churn)
	return fmt.Sprintf("%d/%d", kept, len(weaks))
}

// x86Features is internal/cpu.X86 (which it pushes with go:linkname), up
// to its last feature in Go 1.26: a cache line's pad, then one bool per
// feature. On other architectures it is zeros.
//
//go:linkname x86Features internal/cpu.X86
var x86Features [64 + 35]byte

// threadsAfter sleeps d in one system call and returns the threads the
// process then has.
func threadsAfter(d time.Duration) int {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	tasks, _ := os.ReadDir("/proc/self/task")
	return len(tasks)
}

// cgroupFiles returns the files under /sys/fs/cgroup the process has
// open, sorted, joined by commas.
func cgroupFiles() string {
	fds, _ := os.ReadDir("/proc/self/fd")
	var files []string
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(to, "/sys/fs/cgroup/") {
			files = append(files, to)
		}
	}
	sort.Strings(files)
	return strings.Join(files, ",")
}
