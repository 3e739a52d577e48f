//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// helperSpec is everything the helper does, prepared by the runner so the
// helper parses nothing but this. encode gives its wire format.
type helperSpec struct {
	Path string
	Argv []string
	Env  []string
	Dir  string
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
	if err := startHelper(cmd, specR, repW, specW, spec, nil); err != nil {
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

// startHelper starts cmd, whose ExtraFiles begin with specR and repW,
// closes this process's copies of those ends and writes spec to the
// helper through specW, closing it.
//
// Holding specR open would make a helper that died before reading block
// a spec larger than the pipe buffer forever. A helper that reads only
// part of the spec must never see its end: a spec cut at a record
// boundary decodes, without the records (Landlock, seccomp) that follow.
// So a failed write kills the helper before specW is closed.
//
// started, when not nil, runs between the start and the write: the helper
// waits for its spec, so what started does to it (a cgroup) holds for
// everything it forks. An error from it kills the helper.
func startHelper(cmd *exec.Cmd, specR, repW, specW *os.File, spec []byte, started func(pid int) error) error {
	err := cmd.Start()
	specR.Close()
	repW.Close()
	if err != nil {
		specW.Close()
		return fmt.Errorf("sandbox: starting helper: %w", err)
	}
	if started != nil {
		if err := started(cmd.Process.Pid); err != nil {
			cmd.Process.Kill()
			specW.Close()
			cmd.Wait()
			return err
		}
	}
	if _, err := specW.Write(spec); err != nil {
		cmd.Process.Kill()
		specW.Close()
		cmd.Wait()
		return fmt.Errorf("sandbox: writing the helper spec: %w", err)
	}
	specW.Close()
	return nil
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

// mountNSInode identifies the calling process's mount namespace.
func mountNSInode() (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/mnt", &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}
