//go:build linux

package spawnexec

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// wait reaps pid and returns its wait status.
func wait(t *testing.T, pid int) unix.WaitStatus {
	t.Helper()
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestStart: the child gets the descriptors it is given at their numbers
// (nil closed, a source among the targets moved, not lost), an empty
// environment, a session of its own, SIGKILL as its death signal and the
// CPUs asked for, and execs with every signal blocked; Execed says nil.
func TestStart(t *testing.T) {
	if !Supported {
		t.Skip("spawnexec starts nothing on this platform")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var cpus unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cpus); err != nil {
		t.Fatal(err)
	}
	first := -1
	for i := 0; i < 1024 && first < 0; i++ {
		if cpus.IsSet(i) {
			first = i
		}
	}
	var one unix.CPUSet
	one.Set(first)
	mask := (*[8]byte)(unsafe8(&one))[:]
	// Descriptor 3 is the pipe, 4 is closed, 5 is /dev/null: the
	// sources' own numbers are among the targets.
	script := `exec >&3; echo "home=${HOME-unset}"; echo "sid=$(cut -d' ' -f6 /proc/self/stat) pid=$$"; ` +
		`grep -E '^Cpus_allowed_list:' /proc/self/status; echo x >&4 2>/dev/null || echo closed; cat <&5; echo end`
	files := []*os.File{null, null, null, w, nil, null}
	c, err := Start("/bin/sh", []string{"sh", "-c", script}, files, Attr{Setsid: true, CPUs: mask})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Execed(); err != nil {
		t.Fatalf("Execed: %v", err)
	}
	out, _ := io.ReadAll(r)
	if ws := wait(t, c.Pid()); ws.ExitStatus() != 0 {
		t.Fatalf("child exited %v: %s", ws, out)
	}
	got := string(out)
	for _, want := range []string{
		"home=unset\n",
		"sid=" + strconv.Itoa(c.Pid()) + " pid=" + strconv.Itoa(c.Pid()) + "\n",
		"Cpus_allowed_list:\t" + strconv.Itoa(first) + "\n",
		"closed\nend\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
}

// TestStartFails: a program that cannot be exec'd is reported by Execed
// with its errno, and the child exits 127; one whose descriptor is not
// open fails the same way before its exec.
func TestStartFails(t *testing.T) {
	if !Supported {
		t.Skip("spawnexec starts nothing on this platform")
	}
	c, err := Start("/nonexistent/program", []string{"x"}, nil, Attr{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Execed(); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("Execed = %v, want ENOENT", err)
	}
	if ws := wait(t, c.Pid()); ws.ExitStatus() != 127 {
		t.Errorf("child exited %v, want 127", ws)
	}
	// A number this process has not opened.
	f := os.NewFile(999, "none")
	c, err = Start("/bin/true", []string{"true"}, []*os.File{nil, nil, nil, f}, Attr{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Execed(); !errors.Is(err, syscall.EBADF) {
		t.Errorf("Execed = %v, want EBADF", err)
	}
	wait(t, c.Pid())
}

// TestStartDeathSignal: the child dies with the thread that started it.
func TestStartDeathSignal(t *testing.T) {
	if !Supported {
		t.Skip("spawnexec starts nothing on this platform")
	}
	done := make(chan *Child)
	go func() {
		// A locked goroutine's thread ends with it.
		lockAndStart(t, done)
	}()
	c := <-done
	if c == nil {
		t.Fatal("no child")
	}
	ch := make(chan unix.WaitStatus, 1)
	go func() { ch <- wait(t, c.Pid()) }()
	select {
	case ws := <-ch:
		if !ws.Signaled() || ws.Signal() != unix.SIGKILL {
			t.Errorf("child ended %v, want killed", ws)
		}
	case <-time.After(10 * time.Second):
		unix.Kill(c.Pid(), unix.SIGKILL)
		t.Fatal("the child outlived the thread that started it")
	}
}

// TestStartSignalsBlocked: the child execs with every signal blocked (but
// the two that cannot be): a signal it took before, with Go's handlers,
// would run them on its parent's memory. Its program sets its own mask.
func TestStartSignalsBlocked(t *testing.T) {
	if !Supported {
		t.Skip("spawnexec starts nothing on this platform")
	}
	c, err := Start("/bin/sleep", []string{"sleep", "60"}, nil, Attr{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		unix.Kill(c.Pid(), unix.SIGKILL)
		wait(t, c.Pid())
	}()
	if err := c.Execed(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.Pid()) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "SigBlk:\tfffffffffffbfeff\n") {
		t.Errorf("the child's status:\n%s\nwant every signal blocked but SIGKILL and SIGSTOP", b)
	}
}

// TestStartMovesChild: the child is on its CPUs when Start returns, moved
// by its parent before it first runs, not waiting on the parent's CPU to
// move itself.
func TestStartMovesChild(t *testing.T) {
	if !Supported {
		t.Skip("spawnexec starts nothing on this platform")
	}
	var cpus unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cpus); err != nil {
		t.Fatal(err)
	}
	here := thisCPU(t)
	// Another CPU than this thread's where there is one: the child is
	// queued here first.
	other := -1
	for i := 0; i < 1024; i++ {
		if cpus.IsSet(i) && (other < 0 || i != here) {
			other = i
		}
	}
	var one unix.CPUSet
	one.Set(other)
	c, err := Start("/bin/sleep", []string{"sleep", "60"}, nil, Attr{CPUs: (*[8]byte)(unsafe8(&one))[:]})
	if err != nil {
		t.Fatal(err)
	}
	var got unix.CPUSet
	gerr := unix.SchedGetaffinity(c.Pid(), &got)
	defer func() {
		unix.Kill(c.Pid(), unix.SIGKILL)
		wait(t, c.Pid())
	}()
	if gerr != nil {
		t.Fatal(gerr)
	}
	if got != one {
		t.Errorf("the child's CPUs when Start returned: %d of them, want CPU %d alone", got.Count(), other)
	}
}
