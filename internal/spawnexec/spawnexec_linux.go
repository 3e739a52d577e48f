//go:build linux

package spawnexec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Attr is how a child is started: Setsid, SIGKILL as its death signal
// (always), Cloneflags added to the clone (CLONE_NEWPID or none), and
// CPUs, a sched_setaffinity(2) mask it takes before its execve (nil:
// none).
type Attr struct {
	Setsid     bool
	Cloneflags uintptr
	CPUs       []byte
}

// Child is a program Start started: its execve may still be under way.
type Child struct {
	pid    int
	status *os.File
	m      []byte
}

// Pid returns the child's pid.
func (c *Child) Pid() int { return c.pid }

// The plan's slots, 8 bytes each, as the assembly reads them; the arrays
// and strings they point to follow, in the same mapping.
const (
	planPath     = 0  // the program's path, NUL-ended
	planArgv     = 1  // its argv: pointers, then NULL
	planEnvp     = 2  // its environment: NULL alone
	planFiles    = 3  // how many descriptors it gets: 0 to n-1
	planSources  = 4  // n descriptors of this process (-1: closed)
	planScratch  = 5  // n words the child keeps its copies in
	planStatus   = 6  // the status pipe's write end
	planMaskSize = 7  // the CPU mask's size in bytes (0: none)
	planMask     = 8  // the CPU mask
	planParent   = 9  // this process's pid, for the child's check (0: none)
	planSetsid   = 10 // 1 for a session of its own
	planErrno    = 11 // where the child puts a failure's errno
	planSlots    = 12
)

// mappingSize is the size of a child's mapping, stackSize the part of it
// kept for the child's stack, which it hardly uses: it calls nothing.
const (
	mappingSize = 64 << 10
	stackSize   = 4 << 10
)

// errUnsupported is Start's error where it cannot start anything.
var errUnsupported = errors.New("spawnexec: not on this platform")

// Start starts path with argv, an empty environment and files as its
// descriptors (files[i] becomes descriptor i, nil a closed one), as attr
// says, every signal blocked (its program sets its own mask), and
// returns once it is cloned. Where Supported is false it starts nothing.
func Start(path string, argv []string, files []*os.File, attr Attr) (*Child, error) {
	if !Supported {
		return nil, errUnsupported
	}
	m, err := unix.Mmap(-1, 0, mappingSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("spawnexec: %s: %w", path, err)
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		unix.Munmap(m)
		return nil, fmt.Errorf("spawnexec: %s: %w", path, err)
	}
	c := &Child{status: os.NewFile(uintptr(fds[0]), "spawn-status"), m: m}
	statusW := fds[1]
	if err := c.plan(path, argv, files, statusW, attr); err != nil {
		unix.Close(statusW)
		c.release()
		return nil, err
	}
	flags := uint64(attr.Cloneflags) | unix.CLONE_VM | uint64(unix.SIGCHLD)
	base := uintptr(unsafe.Pointer(&m[0]))
	syscall.ForkLock.Lock()
	pid := clone(base, base+uintptr(len(m)), flags)
	syscall.ForkLock.Unlock()
	// The child holds its own copy of every descriptor from the clone on.
	unix.Close(statusW)
	if pid < 0 {
		c.release()
		return nil, &os.PathError{Op: "clone", Path: path, Err: syscall.Errno(-pid)}
	}
	c.pid = int(pid)
	if len(attr.CPUs) > 0 {
		// A new task is queued on its parent's CPU, where it waits for
		// this thread to give the CPU up (0.08 ms, traced) before it can
		// move itself: moved now, not yet running, it starts on its own
		// CPUs at once. Best effort, as the child's own move.
		unix.RawSyscall(unix.SYS_SCHED_SETAFFINITY, uintptr(pid), uintptr(len(attr.CPUs)), uintptr(unsafe.Pointer(&attr.CPUs[0])))
	}
	return c, nil
}

// plan writes the child's plan into the mapping: the slots, then the
// arrays, the CPU mask and the strings.
func (c *Child) plan(path string, argv []string, files []*os.File, status int, attr Attr) error {
	b := c.m[:len(c.m)-stackSize]
	addr := func(off int) uint64 { return uint64(uintptr(unsafe.Pointer(&b[off]))) }
	slot := func(i int, v uint64) { binary.LittleEndian.PutUint64(b[8*i:], v) }
	off := 8 * planSlots
	room := func(n int) (int, error) {
		at := (off + 7) &^ 7
		if at+n > len(b) {
			return 0, fmt.Errorf("spawnexec: %s: its arguments take more than %d bytes", path, len(b))
		}
		off = at + n
		return at, nil
	}
	str := func(v string) (uint64, error) {
		at, err := room(len(v) + 1)
		if err != nil {
			return 0, err
		}
		copy(b[at:], v)
		b[at+len(v)] = 0
		return addr(at), nil
	}
	p, err := str(path)
	if err != nil {
		return err
	}
	slot(planPath, p)
	av, err := room(8 * (len(argv) + 1))
	if err != nil {
		return err
	}
	for i, a := range argv {
		sp, err := str(a)
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint64(b[av+8*i:], sp)
	}
	slot(planArgv, addr(av))
	env, err := room(8)
	if err != nil {
		return err
	}
	slot(planEnvp, addr(env))
	src, err := room(8 * len(files))
	if err != nil {
		return err
	}
	scratch, err := room(8 * len(files))
	if err != nil {
		return err
	}
	for i, f := range files {
		fd := int64(-1)
		if f != nil {
			fd = int64(f.Fd())
		}
		binary.LittleEndian.PutUint64(b[src+8*i:], uint64(fd))
	}
	slot(planFiles, uint64(len(files)))
	slot(planSources, addr(src))
	slot(planScratch, addr(scratch))
	slot(planStatus, uint64(status))
	if len(attr.CPUs) > 0 {
		at, err := room(len(attr.CPUs))
		if err != nil {
			return err
		}
		copy(b[at:], attr.CPUs)
		slot(planMaskSize, uint64(len(attr.CPUs)))
		slot(planMask, addr(at))
	}
	if attr.Setsid {
		slot(planSetsid, 1)
	}
	if attr.Cloneflags&unix.CLONE_NEWPID == 0 {
		// In a PID namespace of its own the child sees no parent.
		slot(planParent, uint64(os.Getpid()))
	}
	return nil
}

// Execed waits until the child has exec'd its program, or failed to, and
// says which: nil once the execve has replaced the child's memory (the
// status pipe's end: its write end went with that execve), else why it
// failed (the child exits 127 then). The mapping is released then; call
// it once, before the child is reaped.
func (c *Child) Execed() error {
	var b [4]byte
	n, err := io.ReadFull(c.status, b[:])
	c.release()
	switch {
	case n == 0 && err == io.EOF:
		return nil
	case n == 4:
		return syscall.Errno(binary.LittleEndian.Uint32(b[:]))
	default:
		return fmt.Errorf("spawnexec: reading the child's status: %w", err)
	}
}

// release closes the status pipe and unmaps the mapping: only once the
// child has exec'd or exited.
func (c *Child) release() {
	if c.status != nil {
		c.status.Close()
		c.status = nil
	}
	if c.m != nil {
		unix.Munmap(c.m)
		c.m = nil
	}
}
