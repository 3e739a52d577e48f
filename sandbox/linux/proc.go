//go:build linux

package linux

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// proc is a helper process the runner forks itself rather than through
// os/exec: os.StartProcess first checks, once per process, that pidfds
// work, by forking and reaping a child of its own (0.1 ms of a fresh Go
// program, median of 20 here), which every one-shot sandboxed run paid
// before its helper's fork. A proc needs no pidfd: its pid names it
// until Wait reaps it, and Kill refuses once that has begun, as
// os.Process did before pidfds. A helper that is its PID namespace's
// init says when its run has ended before it exits (WaitEnd).
type proc struct {
	pid int
	// mu guards reaped and status: Kill never signals a pid that Wait
	// has reaped, which the kernel may have given to another process.
	mu     sync.Mutex
	reaped bool
	status syscall.WaitStatus
	// rep, when set, is the read end of the helper's report pipe, which
	// WaitEnd reads (into report) for the helper's word that the run has
	// ended (reportEnd); ended says it came.
	rep    *os.File
	report []byte
	ended  bool
}

// errReaped is Kill's refusal once the process has been reaped.
var errReaped = errors.New("sandbox: the helper has already been reaped")

// startProc forks and execs path with argv, an empty environment and
// files as its descriptors (files[i] becomes descriptor i; nil is a
// closed one), with sys's attributes.
func startProc(path string, argv []string, files []*os.File, sys *syscall.SysProcAttr) (*proc, error) {
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = ^uintptr(0) // closed in the child
		if f != nil {
			fds[i] = f.Fd()
		}
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: []string{}, Files: fds, Sys: sys})
	// The descriptors stay open until the child has them.
	runtime.KeepAlive(files)
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return &proc{pid: pid}, nil
}

// Pid returns the process id, which is also its process group's (it is
// started with a session of its own).
func (p *proc) Pid() int { return p.pid }

// Kill sends the process SIGKILL, unless it has been reaped.
func (p *proc) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return errReaped
	}
	return unix.Kill(p.pid, unix.SIGKILL)
}

// Wait waits for the process to exit and reaps it; once it has, Wait
// returns at once. Its status is then Status's.
func (p *proc) Wait() error {
	if _, done := p.Status(); done {
		return nil
	}
	// Blocks until the process has exited without reaping it, so that
	// a concurrent Kill still names it.
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if _, done := p.Status(); done && err == unix.ECHILD {
			return nil // reaped by a Wait at the same time
		}
		if err != unix.EINTR {
			return fmt.Errorf("sandbox: waiting for the helper: %w", err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return nil
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(p.pid, &ws, 0, nil)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return fmt.Errorf("sandbox: reaping the helper: %w", err)
		}
	}
	p.status, p.reaped = ws, true
	return nil
}

// Status returns the process's wait status, and whether it has been
// reaped (the status is nothing before).
func (p *proc) Status() (syscall.WaitStatus, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.reaped
}

// maxReport bounds what WaitEnd reads of a report: a helper writes one
// line of at most 1 KB, and its end after it.
const maxReport = 64 << 10

// WaitEnd reads the helper's report until it holds the helper's end
// (endMark and what follows it, written at once, last), and
// returns true then, whether or not the helper has exited; false at the
// report's end, the helper's exit (nothing else holds its pipe), or for
// a proc with no report to read. A helper that has said its end waits
// for its socket's end before it exits (linger, helper_linux.c): one
// whose report cannot be read is killed, so that the wait for its exit
// that follows ends.
func (p *proc) WaitEnd() bool {
	if p.rep == nil {
		return false
	}
	// Larger than all a helper has to say: one read takes it whole.
	buf := make([]byte, 4096)
	for {
		n, err := p.rep.Read(buf)
		p.report = append(p.report, buf[:n]...)
		if bytes.IndexByte(p.report, endMark) >= 0 {
			p.ended = true
			return true
		}
		if err == io.EOF {
			return false
		}
		if err != nil || len(p.report) > maxReport {
			p.Kill()
			return false
		}
	}
}

// Report returns the helper's whole report: once it said the run has
// ended, what WaitEnd read; else what it read and the rest, to the end
// (the helper's exit).
func (p *proc) Report() []byte {
	if !p.ended && p.rep != nil {
		rest, _ := io.ReadAll(p.rep)
		p.report = append(p.report, rest...)
	}
	return p.report
}
