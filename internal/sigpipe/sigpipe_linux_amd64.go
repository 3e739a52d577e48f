package sigpipe

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Own says Notify takes the signals itself here, rather than through
// os/signal.
const Own = true

// writeFD is the pipe's write end, which the handler writes to, and
// ownerPID the process that made it, the only one the handler writes in.
// A signal handler has no argument to find them by: they are set, once,
// before the first handler is installed.
var writeFD, ownerPID int32 = -1, -1

// handlerPC and restorerPC return the entry addresses of the signal
// handler (sigpipe_linux_amd64.s) and of its return to the kernel
// (rt_sigreturn), which x86-64 requires of a handler installed by
// rt_sigaction: the code itself, not the wrapper a Go function value of
// an assembly function would name.
func handlerPC() uintptr
func restorerPC() uintptr

// sigaction is the kernel's struct sigaction on x86-64.
type sigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// Flags of sigaction: the handler runs on the thread's alternate signal
// stack (every Go thread has one: a goroutine's stack may be too small
// for the kernel's signal frame), interrupted system calls restart, and
// restorer returns.
const (
	saOnStack  = 0x08000000
	saRestart  = 0x10000000
	saRestorer = 0x04000000
)

// The process's signal handlers are its own, whoever installs them: what
// this package installed, and who wants what, is the process's too.
var taken struct {
	mu sync.Mutex
	// piped says the pipe and its reader are there.
	piped bool
	// prev is the action a signal had before its handler here was
	// installed (the runtime's), put back once no channel wants it.
	prev map[syscall.Signal]sigaction
	subs map[chan<- os.Signal][]syscall.Signal
}

// Notify sends c each of sigs the process receives from now on, without
// blocking (a signal is dropped for a channel that is full), as
// signal.Notify does. It fails, changing nothing, when the pipe cannot be
// made or a handler cannot be installed.
func Notify(c chan<- os.Signal, sigs ...syscall.Signal) error {
	taken.mu.Lock()
	defer taken.mu.Unlock()
	if !taken.piped {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
			return fmt.Errorf("sigpipe: %w", err)
		}
		writeFD, ownerPID = int32(p[1]), int32(os.Getpid())
		taken.piped = true
		taken.prev = map[syscall.Signal]sigaction{}
		taken.subs = map[chan<- os.Signal][]syscall.Signal{}
		go read(os.NewFile(uintptr(p[0]), "sigpipe"))
	}
	act := sigaction{handler: handlerPC(), flags: saOnStack | saRestart | saRestorer, restorer: restorerPC()}
	var installed []syscall.Signal
	for _, s := range sigs {
		if _, ok := taken.prev[s]; ok {
			continue
		}
		var old sigaction
		if err := rtSigaction(s, &act, &old); err != nil {
			for _, s := range installed {
				restore(s)
			}
			return fmt.Errorf("sigpipe: installing the handler of %v: %w", s, err)
		}
		taken.prev[s] = old
		installed = append(installed, s)
	}
	for _, s := range sigs {
		if !slices.Contains(taken.subs[c], s) {
			taken.subs[c] = append(taken.subs[c], s)
		}
	}
	return nil
}

// Stop sends c nothing more, as signal.Stop does; a signal no channel
// wants any longer goes back to the runtime.
func Stop(c chan<- os.Signal) {
	taken.mu.Lock()
	defer taken.mu.Unlock()
	delete(taken.subs, c)
	wanted := map[syscall.Signal]bool{}
	for _, want := range taken.subs {
		for _, s := range want {
			wanted[s] = true
		}
	}
	for s := range taken.prev {
		if !wanted[s] {
			restore(s)
		}
	}
}

// restore puts back the action s had before Notify installed the
// handler; taken.mu is held.
func restore(s syscall.Signal) {
	old := taken.prev[s]
	if rtSigaction(s, &old, nil) == nil {
		delete(taken.prev, s)
	}
}

func rtSigaction(s syscall.Signal, act, old *sigaction) error {
	if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(act)), uintptr(unsafe.Pointer(old)), 8, 0, 0); e != 0 {
		return e
	}
	return nil
}

// read sends each signal written into r to the channels that want it.
func read(r *os.File) {
	var buf [16]byte
	for {
		n, err := r.Read(buf[:])
		taken.mu.Lock()
		for _, b := range buf[:n] {
			s := syscall.Signal(b)
			for c, want := range taken.subs {
				if slices.Contains(want, s) {
					select {
					case c <- s:
					default:
					}
				}
			}
		}
		taken.mu.Unlock()
		if err != nil {
			return
		}
	}
}
