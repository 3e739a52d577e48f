package oneproc

import (
	"slices"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maskBytes is the size of the CPU masks entry reads and writes: 1024
// CPUs. On a host with more the kernel refuses the read, and entry binds
// nothing.
const maskBytes = 128

// What entry leaves for restore: the process's CPUs as it started
// (startedLen bytes of started), whether it bound the process to one
// (pinned), the CPU it was (cpu) and that CPU's mask (alone). Written
// before the runtime starts, read once by restore.
var (
	started    [maskBytes / 8]uint64
	startedLen int64
	cpu        uint32
	alone      [maskBytes / 8]uint64
	pinned     int64
)

// entry is the process's entry point when linked with -E (EntrySymbol),
// in entry_linux_amd64.s.
func entry()

// EntrySymbol is the linker's name of the entry point that starts the Go
// runtime with one processor (go build -ldflags "-E EntrySymbol").
const EntrySymbol = "github.com/gatedexec/gatedexec/internal/oneproc.entry"

// restore gives every thread of the process back the CPUs the process
// started with, when entry bound it to one: the threads the runtime made
// meanwhile inherited that one, and any process or thread they start
// would too. It lists the threads (/proc/self/task) again after setting
// those it found, for one the runtime may have made meanwhile from a
// thread still bound; without /proc, only the calling thread's are set.
func restore() {
	if pinned == 0 {
		return
	}
	set := func(tid int) {
		unix.RawSyscall(unix.SYS_SCHED_SETAFFINITY, uintptr(tid), uintptr(startedLen), uintptr(unsafe.Pointer(&started[0])))
	}
	set(0) // this thread
	first, ok := threads()
	if !ok {
		return
	}
	for _, tid := range first {
		set(tid)
	}
	again, _ := threads()
	for _, tid := range again {
		if !slices.Contains(first, tid) {
			set(tid)
		}
	}
}

// threads returns the ids of the process's threads; false when
// /proc/self/task cannot be read. Read with the system calls alone: it
// runs at every start, where os.File's costs would show.
func threads() ([]int, bool) {
	fd, err := unix.Open("/proc/self/task", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var buf [1024]byte
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf[:])
		if err != nil {
			return nil, false
		}
		if n == 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	tids := make([]int, 0, len(names))
	for _, name := range names {
		if tid, err := strconv.Atoi(name); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, true
}
