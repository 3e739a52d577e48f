//go:build linux

package linux

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// HelperArg is the first argument that turns the gatedexec binary into the
// sandbox helper. The helper only ever adds restrictions to itself before
// exec'ing the target, so starting it by hand grants nothing; the long,
// versioned name keeps it from being triggered by accident.
const HelperArg = "__gatedexec-sandbox-helper-v1__"

// File descriptors the runner hands the helper.
const (
	specFD     = 3 // JSON helperSpec, read to EOF
	errFD      = 4 // CLOEXEC report pipe: silent on a successful exec
	rulesetFD  = 5 // Landlock ruleset, when helperSpec.Landlock
	helperFail = 125
)

// helperSpec is everything the helper does, prepared by the runner so the
// helper parses nothing but this.
type helperSpec struct {
	Path   string    `json:"path"`
	Argv   []string  `json:"argv"`
	Env    []string  `json:"env"`
	Dir    string    `json:"dir,omitempty"`
	Mounts []mountOp `json:"mounts,omitempty"`
	// ParentMntNS is the runner's mount namespace inode: the helper mounts
	// nothing unless it is in a different one, so a stray invocation cannot
	// change the caller's mount table.
	ParentMntNS   uint64   `json:"parent_mntns,omitempty"`
	LoopbackUp    bool     `json:"lo,omitempty"`
	Rlimits       []rlimit `json:"rlimits,omitempty"`
	Landlock      bool     `json:"landlock,omitempty"`
	LandlockFlags uint32   `json:"landlock_flags,omitempty"`
	BPF           []byte   `json:"bpf,omitempty"`
}

type rlimit struct {
	Resource int    `json:"r"`
	Value    uint64 `json:"v"`
}

// IsHelper reports whether args (os.Args) start the sandbox helper.
func IsHelper(args []string) bool {
	return len(args) > 1 && args[1] == HelperArg
}

// HelperMain applies the restrictions the runner prepared to this process
// and execs the target. It never returns. It must be called from an init
// function, on the main goroutine, so that the thread it restricts is the
// one that calls execve.
func HelperMain() {
	runtime.LockOSThread()
	report := os.NewFile(errFD, "report")
	fail := func(code int, tag string, err error) {
		fmt.Fprintf(report, "%s %v", tag, err)
		os.Exit(code)
	}
	if _, err := unix.FcntlInt(errFD, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		os.Exit(helperFail)
	}
	specFile := os.NewFile(specFD, "spec")
	data, err := io.ReadAll(specFile)
	specFile.Close()
	if err != nil {
		fail(helperFail, "setup", fmt.Errorf("reading spec: %w", err))
	}
	var s helperSpec
	if err := json.Unmarshal(data, &s); err != nil {
		fail(helperFail, "setup", fmt.Errorf("decoding spec: %w", err))
	}
	if len(s.Mounts) > 0 {
		if ns, err := mountNSInode(); err != nil || ns == s.ParentMntNS {
			fail(helperFail, "setup", fmt.Errorf("mount namespace: not a private namespace (%v)", err))
		}
	}
	if err := applyMounts(s.Mounts); err != nil {
		fail(helperFail, "setup", err)
	}
	if s.LoopbackUp {
		if err := loopbackUp(); err != nil {
			fail(helperFail, "setup", fmt.Errorf("netns: %w", err))
		}
	}
	for _, r := range s.Rlimits {
		// syscall.Setrlimit, not unix: it tells the runtime not to restore
		// its saved RLIMIT_NOFILE at exec.
		if err := syscall.Setrlimit(r.Resource, &syscall.Rlimit{Cur: r.Value, Max: r.Value}); err != nil {
			fail(helperFail, "setup", fmt.Errorf("rlimit %d: %w", r.Resource, err))
		}
	}
	if s.Dir != "" {
		if err := os.Chdir(s.Dir); err != nil {
			fail(helperFail, "setup", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fail(helperFail, "setup", fmt.Errorf("no_new_privs: %w", err))
	}
	if s.Landlock {
		if err := llsyscall.LandlockRestrictSelf(rulesetFD, s.LandlockFlags); err != nil {
			fail(helperFail, "setup", fmt.Errorf("landlock_restrict_self: %w", err))
		}
		unix.Close(rulesetFD)
	}
	if len(s.BPF) > 0 {
		if err := loadBPF(s.BPF); err != nil {
			fail(helperFail, "setup", err)
		}
	}
	err = syscall.Exec(s.Path, s.Argv, s.Env)
	errno, _ := err.(syscall.Errno)
	switch errno {
	case syscall.ENOENT, syscall.ENOTDIR:
		fail(127, "notfound", err)
	default:
		fail(126, "cannotexec", err)
	}
}

// loadBPF installs a classic BPF program as this thread's seccomp filter.
func loadBPF(prog []byte) error {
	fprog := unix.SockFprog{
		Len:    uint16(len(prog) / 8),
		Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0])),
	}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}

// applyMounts carries out the mount plan in the helper's private mount
// namespace.
func applyMounts(ops []mountOp) error {
	if len(ops) == 0 {
		return nil
	}
	// Keep every change inside this namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("mount: making / private: %w", err)
	}
	for _, op := range ops {
		var err error
		switch op.Kind {
		case mountPin:
			err = unix.Mount(op.Path, op.Path, "", unix.MS_BIND|unix.MS_REC, "")
		case mountReadOnly:
			err = bindReadOnly(op.Path, op.Path)
		case mountEmptyDir:
			err = unix.Mount("tmpfs", op.Path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
		case mountNullFile:
			err = bindReadOnly("/dev/null", op.Path)
		default:
			err = fmt.Errorf("unknown mount kind %d", op.Kind)
		}
		if err != nil {
			return fmt.Errorf("mount %s: %w", op.Path, err)
		}
	}
	return nil
}

// bindReadOnly bind-mounts src onto dst and makes the new mount read-only,
// keeping the flags a user namespace is not allowed to clear.
func bindReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range [][2]uintptr{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f[0] != 0 {
			flags |= f[1]
		}
	}
	return unix.Mount("", dst, "", flags, "")
}

// loopbackUp brings "lo" up in a fresh network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
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
