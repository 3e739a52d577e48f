// Command probe tries one operation a sandbox may forbid and prints "ok" or
// "denied: <error>", so the escape suite reads real results.
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: probe OP [ARG]")
		os.Exit(2)
	}
	arg := ""
	if len(os.Args) > 2 {
		arg = os.Args[2]
	}
	if err := probe(os.Args[1], arg); err != nil {
		fmt.Printf("denied: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func probe(op, arg string) error {
	switch op {
	case "write":
		return os.WriteFile(arg, []byte("pwned\n"), 0o644)
	case "mkdirall":
		return os.MkdirAll(arg, 0o755)
	case "read":
		b, err := os.ReadFile(arg)
		if err == nil && len(b) == 0 {
			return fmt.Errorf("read %s: empty", arg)
		}
		return err
	case "readdir":
		ents, err := os.ReadDir(arg)
		if err == nil && len(ents) == 0 {
			return fmt.Errorf("readdir %s: empty", arg)
		}
		return err
	case "symlink-write": // arg: target outside; link made in cwd
		os.Remove("link")
		if err := os.Symlink(arg, "link"); err != nil {
			return err
		}
		return os.WriteFile("link", []byte("pwned\n"), 0o644)
	case "hardlink-write":
		os.Remove("hlink")
		if err := os.Link(arg, "hlink"); err != nil {
			return err
		}
		return os.WriteFile("hlink", []byte("pwned\n"), 0o644)
	case "rename-in": // move an outside file into the workspace
		return os.Rename(arg, "moved")
	case "tcp":
		c, err := net.Dial("tcp", arg)
		if err != nil {
			return err
		}
		return c.Close()
	case "loopback": // listen and connect on 127.0.0.1 inside the sandbox
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer ln.Close()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		return c.Close()
	case "udp":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err
		}
		return unix.Close(fd)
	case "raw":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
		if err != nil {
			return err
		}
		return unix.Close(fd)
	case "unix":
		c, err := net.Dial("unix", arg)
		if err != nil {
			return err
		}
		return c.Close()
	case "ptrace":
		pid, _ := strconv.Atoi(arg)
		if err := unix.PtraceAttach(pid); err != nil {
			return err
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, 0, nil)
		return unix.PtraceDetach(pid)
	case "tiocsti":
		c := byte('#')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, uintptr(unix.TIOCSTI), uintptr(unsafe.Pointer(&c)))
		return errno(e)
	case "tiocsti-high": // request with high bits set: the kernel reads 32 bits
		c := byte('#')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, uintptr(unix.TIOCSTI)|1<<32, uintptr(unsafe.Pointer(&c)))
		return errno(e)
	case "io_uring":
		var params [120]byte
		r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if e == 0 {
			unix.Close(int(r))
		}
		return errno(e)
	case "bpf":
		var attr [128]byte
		_, _, e := unix.Syscall(unix.SYS_BPF, 0 /* BPF_MAP_CREATE */, uintptr(unsafe.Pointer(&attr[0])), uintptr(len(attr)))
		if e == unix.EINVAL {
			return nil // reached the kernel's bpf code: not filtered
		}
		return errno(e)
	case "mount":
		err := unix.Mount("none", "/mnt", "tmpfs", 0, "")
		if err == nil {
			unix.Unmount("/mnt", 0)
		}
		return err
	case "unshare":
		return unix.Unshare(unix.CLONE_NEWUSER)
	case "clone-newns":
		attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS}}
		pid, err := syscall.ForkExec("/bin/true", []string{"true"}, attr)
		if err == nil {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
		return err
	case "keyctl":
		_, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, true)
		return err
	case "nnp":
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), "NoNewPrivs:\t1") {
			return fmt.Errorf("NoNewPrivs not set")
		}
		return nil
	case "nocaps": // ok when every capability set is empty
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return err
		}
		for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
			if !strings.Contains(string(b), set+":\t0000000000000000\n") {
				return fmt.Errorf("%s is not empty", set)
			}
		}
		return nil
	case "chroot":
		return syscall.Chroot("/")
	case "setuid": // to another uid than the process has
		return errno(rawSetuid(12345))
	case "raw-socket": // with network on, only a missing CAP_NET_RAW refuses it
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
		if err == nil {
			syscall.Close(fd)
		}
		return err
	case "tmpfs-mount": // mount(2) of a new tmpfs
		return syscall.Mount("none", "/tmp", "tmpfs", 0, "")
	case "environ": // arg: a pid whose environment must not be readable
		b, err := os.ReadFile("/proc/" + arg + "/environ")
		if err == nil && len(b) == 0 {
			return fmt.Errorf("environ of %s: empty", arg)
		}
		return err
	case "kill0": // arg: a pid that must not be signalled (signal 0 probes)
		pid, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		return syscall.Kill(pid, 0)
	case "adjtimex": // sets the host clock's maxerror to what it is: harmless where it works
		var tx unix.Timex
		if _, err := unix.Adjtimex(&tx); err != nil {
			return err
		}
		tx.Modes = unix.ADJ_MAXERROR
		_, err := unix.Adjtimex(&tx)
		return err
	case "clock_adjtime": // the same through clock_adjtime(CLOCK_REALTIME)
		var tx unix.Timex
		if _, _, e := unix.Syscall(unix.SYS_CLOCK_ADJTIME, unix.CLOCK_REALTIME, uintptr(unsafe.Pointer(&tx)), 0); e != 0 {
			return e
		}
		tx.Modes = unix.ADJ_MAXERROR
		_, _, e := unix.Syscall(unix.SYS_CLOCK_ADJTIME, unix.CLOCK_REALTIME, uintptr(unsafe.Pointer(&tx)), 0)
		return errno(e)
	case "mtu": // sets lo's MTU to what it is, through an AF_UNIX socket
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		ifr, err := unix.NewIfreq("lo")
		if err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCGIFMTU, ifr); err != nil {
			return err
		}
		return unix.IoctlIfreq(fd, unix.SIOCSIFMTU, ifr)
	case "fifreeze": // never run outside a sandbox: it would freeze the filesystem
		f, err := os.Open(arg)
		if err != nil {
			return err
		}
		defer f.Close()
		// FIFREEZE and FITHAW, _IOWR('X', 119/120, int); x/sys/unix lacks them.
		const fifreeze, fithaw = 0xc0045877, 0xc0045878
		if err := unix.IoctlSetInt(int(f.Fd()), fifreeze, 0); err != nil {
			return err
		}
		return unix.IoctlSetInt(int(f.Fd()), fithaw, 0)
	case "blockdev": // opens the first block device /dev holds
		ents, err := os.ReadDir("/dev")
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.Type()&os.ModeDevice != 0 && e.Type()&os.ModeCharDevice == 0 {
				f, err := os.Open("/dev/" + e.Name())
				if err == nil {
					f.Close()
				}
				return err
			}
		}
		return fmt.Errorf("no block device in /dev")
	case "affinity": // arg: a pid whose CPUs must not be changed
		pid, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(pid, &set); err != nil {
			return err
		}
		return unix.SchedSetaffinity(pid, &set)
	case "setsid": // ok when this process leads its own session
		sid, _ := unix.Getsid(0)
		if sid != os.Getpid() {
			return fmt.Errorf("sid %d != pid %d", sid, os.Getpid())
		}
		return nil
	}
	return fmt.Errorf("unknown probe %q", op)
}

func errno(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// rawSetuid calls setuid(2) on this thread only: the Go runtime's
// syscall.Setuid changes every thread and hides the kernel's answer behind
// its own.
func rawSetuid(uid int) syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_SETUID, uintptr(uid), 0, 0)
	return e
}
