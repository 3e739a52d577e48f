//go:build linux

package linux

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// helperSpec is everything the helper does, prepared by the runner so the
// helper parses nothing but this. encode gives its wire format.
type helperSpec struct {
	Path string
	Argv []string
	Env  []string
	Dir  string
	// FallbackPath and FallbackArgv, when set, are executed instead when
	// Path cannot be: a plain command's bash -c (plainExec).
	FallbackPath string
	FallbackArgv []string
	// Unshare holds the namespaces the helper creates for itself
	// (CLONE_NEW* flags); CLONE_NEWUSER when not root. With CLONE_NEWPID
	// the helper forks an init for the namespace (helper_linux.h).
	Unshare uint32
	Mounts  []mountOp
	// Tmp are directories replaced by an empty tmpfs before Mounts; Keep
	// the paths below them bound back from the host's tree.
	Tmp, Keep []string
	// ParentMntNS is the runner's mount namespace inode: the helper mounts
	// nothing unless it is in a different one, so a stray invocation cannot
	// change the caller's mount table.
	ParentMntNS uint64
	LoopbackUp  bool
	// Egress are the TCP ports the helper listens on in the network
	// namespace, whose every address it makes local, with the DNS stub's
	// sockets, all sent to egressFD (helper_linux.h).
	Egress []uint16
	// CloseFDs ends at exec the descriptors above stderr that the helper
	// inherited: they grant access from outside the sandbox.
	CloseFDs bool
	// DropCaps empties every capability set of the target.
	DropCaps bool
	// Dev gives the command a minimal /dev of its own; PtsAccess and
	// DirAccess are the Landlock rights the helper grants on its devpts
	// and on the writable directories it makes, /dev/shm and the private
	// tmp (0 without a ruleset).
	Dev                  bool
	PtsAccess, DirAccess uint64
	// Reopen lists the standard descriptors (0-2) the helper reopens by
	// path inside the mount namespace (see reopenStdio).
	Reopen []int
	// Ctty is 1 + the standard descriptor (0-2) holding the terminal the
	// command gets as controlling terminal, with job control (the runner's
	// pty, see term.go); 0 for none.
	Ctty          int
	Rlimits       []rlimit
	Landlock      bool
	LandlockFlags uint32
	BPF           []byte
	// Affinity is the CPU mask the target runs with, the runner's
	// (runnerCPUs), whose CPU the helper may have been moved off
	// (moveAside); nil leaves the helper's own.
	Affinity []byte
}

type rlimit struct {
	Resource int
	Value    uint64
}

// IsHelper reports whether args (os.Args) are the helper's: gatedexec
// itself started so was exec'd by mistake or by someone else.
func IsHelper(args []string) bool {
	return len(args) > 1 && args[1] == HelperArg
}

// HelperMain refuses a gatedexec started with the helper's arguments: the
// helper is a program of its own (helperbin.go), and the command is not
// run, unsandboxed or otherwise. Call it first thing in main or init.
func HelperMain() {
	fmt.Fprintln(os.Stderr, "gatedexec: started as the sandbox helper, which is a program of its own; refusing to run the command")
	os.Exit(helperFail)
}

// runHelperSpec runs the helper (the memfd self) with spec and nothing
// else (no stdio, no ruleset) and returns its exit status and report.
func runHelperSpec(self *os.File, spec []byte) (code int, report string, err error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return 0, "", err
	}
	defer specR.Close()
	repR, repW, err := os.Pipe()
	if err != nil {
		specW.Close()
		return 0, "", err
	}
	defer repR.Close()
	cmd := &exec.Cmd{Path: selfPath, Args: []string{"gatedexec-sandbox", HelperArg},
		ExtraFiles: helperFiles(specR, repW, nil, nil, self)}
	if err := startHelper(cmd, specR, repW, specW, spec, nil, nil); err != nil {
		return 0, "", err
	}
	rep, _ := io.ReadAll(repR)
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(rep), nil
	}
	return 0, string(rep), err
}

// helperFiles places the spec pipe, the report pipe, the Landlock ruleset,
// the egress socket and the helper's own program (nil: none) at the
// descriptors helper_linux.h gives them.
func helperFiles(spec, report, ruleset, egress, self *os.File) []*os.File {
	files := make([]*os.File, selfFD-2)
	files[specFD-3], files[errFD-3], files[rulesetFD-3], files[egressFD-3], files[selfFD-3] = spec, report, ruleset, egress, self
	// A nil entry is a closed descriptor in the helper; trailing ones are
	// left out.
	for len(files) > 0 && files[len(files)-1] == nil {
		files = files[:len(files)-1]
	}
	return files
}

// startHelper writes spec to the helper through specW, starts cmd, whose
// ExtraFiles begin with specR and repW, closes this process's copies of
// those ends and, last, gives the helper its go-ahead (goAheadByte) on specW
// and closes it. Every failure closes specW without the go-ahead, which
// the helper refuses.
//
// The spec goes first, framed by its length, so the helper decodes it and
// sets up its namespaces and mounts while this process is still in
// cmd.Start (which waits for the exec) and in started: the helper forks
// and execs nothing before the go-ahead. started, when not nil, runs
// between the start and the go-ahead, so what it does to the helper (a
// cgroup) holds for everything the helper starts; an error from it kills
// the helper. ready, when not nil, runs last before the go-ahead, once
// the helper has its spec.
//
// A spec that fits the pipe is written before the start without blocking;
// a larger one is written meanwhile, and holding specR open would make a
// helper that died before reading it block that write forever. The
// helper refuses a spec cut short, and a failed write kills it before
// specW is closed, as started's error does.
func startHelper(cmd *exec.Cmd, specR, repW, specW *os.File, spec []byte, started func(pid int) error, ready func()) error {
	if len(spec) > maxSpec {
		specR.Close()
		repW.Close()
		specW.Close()
		return fmt.Errorf("sandbox: the helper spec is %d bytes, more than %d", len(spec), maxSpec)
	}
	frame := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(spec)), uint32(len(spec)))
	frame = append(frame, spec...)
	written := make(chan error, 1)
	if fitsPipe(specW, len(frame)) {
		_, err := specW.Write(frame)
		written <- err
	} else {
		go func() {
			_, err := specW.Write(frame)
			written <- err
		}()
	}
	err := cmd.Start()
	specR.Close()
	repW.Close()
	if err != nil {
		specW.Close()
		<-written
		return fmt.Errorf("sandbox: starting helper: %w", err)
	}
	if started != nil {
		err = started(cmd.Process.Pid)
	}
	if err != nil {
		// Closing specW ends a write still under way.
		cmd.Process.Kill()
		specW.Close()
		<-written
	} else if err = <-written; err != nil {
		cmd.Process.Kill()
		err = fmt.Errorf("sandbox: writing the helper spec: %w", err)
	} else {
		if ready != nil {
			ready()
		}
		// A helper that has ended (it refused its spec) takes no
		// go-ahead, and its report, not this write's EPIPE, says why;
		// one that did not get it starts nothing.
		specW.Write([]byte{goAheadByte})
	}
	specW.Close()
	if err != nil {
		cmd.Wait()
	}
	return err
}

// fitsPipe reports whether n bytes fit the empty pipe w without blocking.
func fitsPipe(w *os.File, n int) bool {
	rc, err := w.SyscallConn()
	if err != nil {
		return false
	}
	size := 0
	rc.Control(func(fd uintptr) { size, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	return n <= size
}

// helperReport is what the helper said on the report pipe.
type helperReport struct {
	tag, msg string
}

func parseReport(b []byte) (helperReport, bool) {
	if len(b) == 0 {
		return helperReport{}, false
	}
	tag, msg, _ := strings.Cut(string(b), " ")
	return helperReport{tag: tag, msg: msg}, true
}

// splitEnd splits what a helper reported into its report and the end it
// said after it (reportEnd, behind endMark): the target's wait status.
// ended is false, and report all of rep, when it said none; an end that
// is not the tag, a space, a wait status in decimal and a newline is an
// error.
func splitEnd(rep []byte) (report []byte, ws syscall.WaitStatus, ended bool, err error) {
	report, end, ended := bytes.Cut(rep, []byte{endMark})
	if !ended {
		return rep, 0, false, nil
	}
	s, ok := strings.CutPrefix(string(end), reportEnd+" ")
	if ok {
		s, ok = strings.CutSuffix(s, "\n")
	}
	n, perr := strconv.ParseUint(s, 10, 16)
	if !ok || perr != nil {
		return nil, 0, true, fmt.Errorf("sandbox helper: an end report %q: %w", end, sandbox.ErrLayerUnavailable)
	}
	return report, syscall.WaitStatus(n), true, nil
}

// mountNSInode identifies the calling process's mount namespace.
func mountNSInode() (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/mnt", &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}
