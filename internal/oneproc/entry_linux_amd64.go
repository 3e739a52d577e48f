package oneproc

import (
	"encoding/binary"
	"slices"
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
// would too. It reads the threads from /proc/self/task again after
// setting those it found, for one the runtime may have made meanwhile
// from a thread still bound; without /proc, only the calling thread's
// are set.
func restore() {
	if pinned == 0 {
		return
	}
	set := func(tid int) {
		unix.RawSyscall(unix.SYS_SCHED_SETAFFINITY, uintptr(tid), uintptr(startedLen), uintptr(unsafe.Pointer(&started[0])))
	}
	self := unix.Gettid()
	set(self)
	var done, found [16]int
	done[0] = self
	n := 1
	for range 2 {
		tids, ok := threads(found[:0])
		if !ok {
			return
		}
		more := false
		for _, tid := range tids {
			if !slices.Contains(done[:n], tid) {
				set(tid)
				more = true
				if n < len(done) {
					done[n] = tid
					n++
				}
			}
		}
		if !more {
			return
		}
	}
}

// threads appends the ids of the process's threads to tids; false when
// /proc/self/task cannot be read. Read with the system calls alone: it
// runs at every start, where os.File's costs would show.
func threads(tids []int) ([]int, bool) {
	fd, err := unix.Open("/proc/self/task", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var buf [1024]byte
	for {
		n, err := unix.ReadDirent(fd, buf[:])
		if err != nil {
			return nil, false
		}
		if n == 0 {
			return tids, true
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino, off, reclen, type, name.
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, false
			}
			if tid, ok := number(b[19:reclen]); ok {
				tids = append(tids, tid)
			}
			b = b[reclen:]
		}
	}
}

// number reads the decimal name of a directory entry, NUL-terminated.
func number(name []byte) (int, bool) {
	v, digits := 0, 0
	for _, c := range name {
		if c == 0 {
			break
		}
		if c < '0' || c > '9' || digits == 9 {
			return 0, false
		}
		v, digits = v*10+int(c-'0'), digits+1
	}
	return v, digits > 0
}
