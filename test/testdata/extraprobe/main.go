// Command extraprobe tries one operation of the extra escape suite
// (escape_extra_test.go) and prints "ok" or "denied: <error>", like probe.
// Operations that read print what they read, so a test can see a leak.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: extraprobe OP [ARG...]")
		os.Exit(2)
	}
	if err := probe(os.Args[1], os.Args[2:]); err != nil {
		fmt.Printf("denied: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func probe(op string, args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch op {
	case "fd-read": // FD NAME: read NAME relative to an inherited directory fd
		fd, err := strconv.Atoi(arg(0))
		if err != nil {
			return err
		}
		return readAt(fd, arg(1))
	case "fd-write": // FD NAME
		fd, err := strconv.Atoi(arg(0))
		if err != nil {
			return err
		}
		return writeAt(fd, arg(1))
	case "open-tree-read", "open-tree-write": // PATH: through a detached clone of "/"
		tree, err := openTreeAttr("/")
		if err != nil {
			return err
		}
		defer unix.Close(tree)
		if op == "open-tree-read" {
			return readAt(tree, rel(arg(0)))
		}
		return writeAt(tree, rel(arg(0)))
	case "handle-write": // PATH MOUNTDIR: reopen PATH by handle on MOUNTDIR's mount
		h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, arg(0), 0)
		if err != nil {
			return fmt.Errorf("name_to_handle_at: %w", err)
		}
		m, err := unix.Open(arg(1), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(m)
		fd, err := unix.OpenByHandleAt(m, h, unix.O_WRONLY|unix.O_TRUNC|unix.O_CLOEXEC)
		if err != nil {
			return fmt.Errorf("open_by_handle_at: %w", err)
		}
		defer unix.Close(fd)
		_, err = unix.Write(fd, []byte("pwned\n"))
		return err
	case "mknod-write": // PATH: a node for /dev/null's device, then write it
		os.Remove(arg(0))
		if err := unix.Mknod(arg(0), unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))); err != nil {
			return fmt.Errorf("mknod: %w", err)
		}
		defer os.Remove(arg(0))
		return os.WriteFile(arg(0), []byte("x"), 0o600)
	case "sethostname": // sets the hostname it already has
		var u unix.Utsname
		if err := unix.Uname(&u); err != nil {
			return err
		}
		return unix.Sethostname(u.Nodename[:clen(u.Nodename[:])])
	case "setdomainname":
		var u unix.Utsname
		if err := unix.Uname(&u); err != nil {
			return err
		}
		return unix.Setdomainname(u.Domainname[:clen(u.Domainname[:])])
	case "syslog": // SYSLOG_ACTION_SIZE_BUFFER, the one action that changes nothing
		_, err := unix.Klogctl(10, nil)
		return err
	case "settimeofday": // with no time and no zone: a permission check only
		_, _, e := unix.Syscall(unix.SYS_SETTIMEOFDAY, 0, 0, 0)
		return errno(e)
	case "tiocvhangup": // hang up the terminal on stdin
		return unix.IoctlSetInt(0, unix.TIOCVHANGUP, 0)
	case "tiocsctty-force": // take the terminal on stdin from its session
		return unix.IoctlSetInt(0, unix.TIOCSCTTY, 1)
	case "vhangup":
		_, _, e := unix.Syscall(unix.SYS_VHANGUP, 0, 0, 0)
		return errno(e)
	case "tioccons": // redirect the console to stdin, then undo it
		if err := unix.IoctlSetInt(0, unix.TIOCCONS, 0); err != nil {
			return err
		}
		// TIOCCONS on the console itself ends the redirection; a
		// sandbox may not let the probe open it, so the test undoes it
		// too.
		fd, err := unix.Open("/dev/console", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err == nil {
			err = unix.IoctlSetInt(fd, unix.TIOCCONS, 0)
			unix.Close(fd)
		}
		if err != nil {
			fmt.Printf("console left redirected: %v\n", err)
		}
		return nil
	case "sysv-shm-id": // ID: write "pwned" into the System V segment ID
		id, err := strconv.Atoi(arg(0))
		if err != nil {
			return err
		}
		b, err := unix.SysvShmAttach(id, 0, 0)
		if err != nil {
			return fmt.Errorf("shmat: %w", err)
		}
		copy(b, "pwned")
		return unix.SysvShmDetach(b)
	case "prlimit": // PID: set PID's core size limit to 0 (0 is this process)
		pid, err := strconv.Atoi(arg(0))
		if err != nil {
			return err
		}
		var old unix.Rlimit
		if err := unix.Prlimit(pid, unix.RLIMIT_CORE, nil, &old); err != nil {
			return fmt.Errorf("prlimit (reading): %w", err)
		}
		lim := unix.Rlimit{Cur: 0, Max: old.Max}
		return unix.Prlimit(pid, unix.RLIMIT_CORE, &lim, nil)
	case "renice": // PID: raise PID's nice value by one (0 is this process)
		pid, err := strconv.Atoi(arg(0))
		if err != nil {
			return err
		}
		// getpriority(2) returns 20 - nice.
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
		if err != nil {
			return fmt.Errorf("getpriority: %w", err)
		}
		return unix.Setpriority(unix.PRIO_PROCESS, pid, 20-prio+1)
	case "ioprio": // PID: move PID to the idle I/O class (0 is this process)
		pid, err := strconv.Atoi(arg(0))
		if err != nil {
			return err
		}
		const whoProcess, classIdle = 1, 3
		_, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, uintptr(pid), classIdle<<13)
		return errno(e)
	case "fanotify": // DIR: watch DIR's filesystem for opens, read what they open
		return fanotifyLeak(arg(0))
	// The calls below are made so that they fail after the kernel's
	// permission check: that error means the call was not filtered.
	case "reboot": // bad magic: EINVAL, and nothing happens
		_, _, e := unix.Syscall6(unix.SYS_REBOOT, 0, 0, 0, 0, 0, 0)
		return reached(e, unix.EINVAL)
	case "swapon", "acct": // a path that does not exist
		p, _ := unix.BytePtrFromString("/nonexistent-gatedexec-extraprobe")
		nr := uintptr(unix.SYS_SWAPON)
		if op == "acct" {
			nr = unix.SYS_ACCT
		}
		_, _, e := unix.Syscall(nr, uintptr(unsafe.Pointer(p)), 0, 0)
		return reached(e, unix.ENOENT)
	}
	return fmt.Errorf("unknown probe %q", op)
}

// fanotifyLeak marks the filesystem holding dir, prints "ready", and reads
// the files others open there until one holds "SECRET", which it prints.
func fanotifyLeak(dir string) error {
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_CLOEXEC, unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		return fmt.Errorf("fanotify_init: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM, unix.FAN_OPEN, unix.AT_FDCWD, dir); err != nil {
		return fmt.Errorf("fanotify_mark: %w", err)
	}
	fmt.Println("ready")
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if err != nil {
			return err
		}
		size := int(unsafe.Sizeof(unix.FanotifyEventMetadata{}))
		for off := 0; off+size <= n; {
			m := (*unix.FanotifyEventMetadata)(unsafe.Pointer(&buf[off]))
			if m.Event_len < uint32(size) {
				return fmt.Errorf("fanotify: short event")
			}
			off += int(m.Event_len)
			if m.Fd < 0 {
				continue
			}
			b := make([]byte, 256)
			k, _ := unix.Pread(int(m.Fd), b, 0)
			unix.Close(int(m.Fd))
			if k > 0 && strings.Contains(string(b[:k]), "SECRET") {
				fmt.Printf("leaked: %s", b[:k])
				return nil
			}
		}
	}
}

// openTreeAttr is open_tree_attr(2) with OPEN_TREE_CLONE and no attributes,
// which is open_tree(2) under another number.
func openTreeAttr(path string) (int, error) {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	cwd := unix.AT_FDCWD
	r, _, e := unix.Syscall6(unix.SYS_OPEN_TREE_ATTR, uintptr(cwd), uintptr(unsafe.Pointer(p)),
		unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC, 0, 0, 0)
	if e != 0 {
		return -1, fmt.Errorf("open_tree_attr: %w", e)
	}
	return int(r), nil
}

func readAt(dir int, name string) error {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("openat %s: %w", name, err)
	}
	defer unix.Close(fd)
	f := os.NewFile(uintptr(fd), name)
	b := make([]byte, 4096)
	n, err := f.Read(b)
	if n == 0 {
		return fmt.Errorf("read %s: empty (%v)", name, err)
	}
	fmt.Printf("read: %s", b[:n])
	return nil
}

func writeAt(dir int, name string) error {
	fd, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("openat %s: %w", name, err)
	}
	defer unix.Close(fd)
	_, err = unix.Write(fd, []byte("pwned\n"))
	return err
}

// rel makes an absolute path relative to "/".
func rel(p string) string {
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	return p
}

func clen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

// reached turns the errno a call fails with once past the permission
// check into success; anything else (EPERM from seccomp) is the refusal.
func reached(e, past unix.Errno) error {
	if e == past {
		return nil
	}
	if e == 0 {
		return fmt.Errorf("call succeeded unexpectedly")
	}
	return e
}

func errno(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
