package exitunmap

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestMain runs this binary as the process of TestHolderClosesStdio,
// which starts a holder waiting for the process named by
// EXITUNMAP_TEST_WAIT, prints the holder's pid and exits, of TestExit,
// which prints and exits 7 through a Leave with nothing left to it, or of
// TestExitHoldsWhenAsked, which exits through a Leave asked to hold the
// memory or not (EXITUNMAP_TEST_HOLD).
func TestMain(m *testing.M) {
	if s := os.Getenv("EXITUNMAP_TEST_WAIT"); s != "" {
		pid, _ := strconv.Atoi(s)
		pidfd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			os.Exit(3)
		}
		fmt.Println(holdUntil(pidfd, nil))
		os.Exit(0)
	}
	if dir := os.Getenv("EXITUNMAP_TEST_LEAVE"); dir != "" {
		var l Leave
		if !l.RemoveDir(dir + "/left") {
			os.Exit(4)
		}
		l.Exit(0)
	}
	if mode := os.Getenv("EXITUNMAP_TEST_HOLD"); mode != "" {
		var l Leave
		if mode == "memory" {
			l.HoldMemory()
		}
		l.Exit(0)
	}
	if os.Getenv("EXITUNMAP_TEST_EXIT") != "" {
		fmt.Print("exiting")
		var l Leave
		l.Exit(7)
	}
	os.Exit(m.Run())
}

// sleeper starts a process for a holder to wait for; killing it ends
// the wait.
func sleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Process.Kill()
		c.Wait()
	})
	return c
}

// waitGone waits, at most 10 s, until the process pidfd refers to has
// exited.
func waitGone(t *testing.T, pidfd int) {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 10_000)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n != 1 {
			t.Fatalf("the holder did not exit once the process it waits for had: poll %d, %v", n, err)
		}
		return
	}
}

// waitInPoll waits, at most 10 s, until the holder at proc is in the
// ppoll that waits for the process: done with everything before it.
func waitInPoll(t *testing.T, proc string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		sc, err := os.ReadFile(proc + "syscall")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(sc), strconv.Itoa(unix.SYS_PPOLL)+" ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the holder is not waiting in ppoll: %s", sc)
		}
	}
}

// The holder shares this process's memory, holds every signal blocked and
// every descriptor but stdio, lives while the process it waits for does
// and exits 0 once it has not.
func TestHolder(t *testing.T) {
	s := sleeper(t)
	pidfd, err := unix.PidfdOpen(s.Process.Pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	_, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pid := holdUntil(pidfd, nil)
	if pid <= 0 {
		t.Fatalf("holdUntil = %d", pid)
	}
	exited := false
	defer func() {
		if !exited {
			unix.Kill(pid, unix.SIGKILL)
			unix.Wait4(pid, nil, 0, nil)
		}
	}()
	proc := fmt.Sprintf("/proc/%d/", pid)
	waitInPoll(t, proc)

	// A mapping made after the clone is the holder's too.
	m, err := unix.Mmap(-1, 0, 3*4096, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	maps, err := os.ReadFile(proc + "maps")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(&m[0]))); !strings.Contains(string(maps), want) {
		t.Errorf("the holder's maps lack this process's new mapping at %s:\n%s", want, maps)
	}

	entries, err := os.ReadDir(proc + "fd")
	if err != nil {
		t.Fatal(err)
	}
	var fds []int
	for _, e := range entries {
		n, _ := strconv.Atoi(e.Name())
		fds = append(fds, n)
	}
	for _, fd := range []int{0, 1, 2} {
		if slices.Contains(fds, fd) {
			t.Errorf("the holder keeps descriptor %d (all: %v)", fd, fds)
		}
	}
	for _, fd := range []int{pidfd, int(w.Fd())} {
		if !slices.Contains(fds, fd) {
			t.Errorf("the holder lacks descriptor %d (all: %v)", fd, fds)
		}
	}

	status, err := os.ReadFile(proc + "status")
	if err != nil {
		t.Fatal(err)
	}
	// Every signal but SIGKILL and SIGSTOP, which cannot be blocked.
	const all = ^uint64(1<<(unix.SIGKILL-1) | 1<<(unix.SIGSTOP-1))
	blocked := ""
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "SigBlk:"); ok {
			blocked = strings.TrimSpace(v)
		}
	}
	if got, err := strconv.ParseUint(blocked, 16, 64); err != nil || got != all {
		t.Errorf("the holder blocks signals %q, want %x", blocked, all)
	}

	var ws unix.WaitStatus
	if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got != 0 || err != nil {
		t.Fatalf("the holder ended while the process it waits for lives: wait4 = %d, %v, status %v", got, err, ws)
	}

	s.Process.Kill()
	s.Wait()
	done := make(chan error, 1)
	go func() {
		_, err := unix.Wait4(pid, &ws, 0, nil)
		done <- err
	}()
	select {
	case err := <-done:
		exited = true
		if err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
			t.Errorf("the holder ended with %v, %v; want exit 0", ws, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the holder did not exit once the process it waits for had")
	}
}

// Exit exits with its code, the output before it whole.
func TestExit(t *testing.T) {
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "EXITUNMAP_TEST_EXIT=1")
	out, err := c.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 || string(out) != "exiting" {
		t.Fatalf("the process ended with %v and wrote %q, want exit status 7 and \"exiting\"", err, out)
	}
}

// The output of a process that exits with a holder behind it ends with
// the process, while the holder still lives.
func TestHolderClosesStdio(t *testing.T) {
	s := sleeper(t)
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "EXITUNMAP_TEST_WAIT="+strconv.Itoa(s.Process.Pid))
	// Were stdout left open in the holder, it would end only with the
	// sleeper: Output then gives up after WaitDelay with ErrWaitDelay.
	c.WaitDelay = 5 * time.Second
	out, err := c.Output()
	if err != nil {
		t.Fatalf("the process ended with %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		t.Fatalf("the process printed %q, want its holder's pid", out)
	}
	// Not this test's child: its pidfd says when it has exited.
	hfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("the holder %d is gone before the process it waits for: %v", pid, err)
	}
	defer unix.Close(hfd)
	fds := []unix.PollFd{{Fd: int32(hfd), Events: unix.POLLIN}}
	if n, _ := unix.Poll(fds, 0); n != 0 {
		t.Fatalf("the holder %d exited before the process it waits for", pid)
	}
	s.Process.Kill()
	s.Wait()
	waitGone(t, hfd)
}

// The holder removes the directories left to it once the process it
// waits for has exited, not before, and only those that are empty then.
func TestHolderRemovesDirs(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"empty", "full"} {
		if err := os.Mkdir(dir+"/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(dir+"/full/f", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := sleeper(t)
	pidfd, err := unix.PidfdOpen(s.Process.Pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	pid := holdUntil(pidfd, []string{dir + "/empty", dir + "/full", dir + "/missing"})
	if pid <= 0 {
		t.Fatalf("holdUntil = %d", pid)
	}
	waitInPoll(t, fmt.Sprintf("/proc/%d/", pid))
	if _, err := os.Stat(dir + "/empty"); err != nil {
		t.Fatalf("removed while the process lives: %v", err)
	}
	s.Process.Kill()
	s.Wait()
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("the holder ended with %v, %v; want exit 0", ws, err)
	}
	if _, err := os.Stat(dir + "/empty"); !os.IsNotExist(err) {
		t.Errorf("the empty directory left to the holder is still there: %v", err)
	}
	if _, err := os.Stat(dir + "/full/f"); err != nil {
		t.Errorf("the directory with a file in it went: %v", err)
	}
}

// A process exiting through Leave.Exit leaves the removal of a directory
// to its holder, which makes it once the process has exited.
func TestLeaveExit(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(dir+"/left", 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "EXITUNMAP_TEST_LEAVE="+dir)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the process ended with %v: %s", err, out)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(dir + "/left"); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the directory left to the exit is still there 10 s after it")
		}
	}
}

// RemoveDir takes absolute paths while they fit beside the holder's
// stack, and refuses the rest, which the caller then removes itself.
func TestRemoveDirBounded(t *testing.T) {
	var l Leave
	path := "/" + strings.Repeat("n", 254)
	n := 0
	for l.RemoveDir(path) {
		n++
	}
	if want := (maxRemovalBytes - 8) / (8 + len(path) + 1); n != want {
		t.Errorf("took %d removals of %d-byte paths, want %d", n, len(path), want)
	}
	m := make([]byte, maxRemovalBytes)
	if !encodeRemovals(m, l.dirs) {
		t.Error("the removals taken do not fit the holder's page")
	}
	for _, p := range []string{"", "/", "relative", "/a\x00b"} {
		if l.RemoveDir(p) {
			t.Errorf("took the removal of %q", p)
		}
	}
}

// A process exiting through a Leave leaves a holder behind only when it
// was asked to hold the memory (or given directories to remove): one that
// mapped little ends sooner without the clone. The holder outlives the
// process, so a subreaper above it adopts and reaps it.
func TestExitHoldsWhenAsked(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	for _, tt := range []struct {
		mode string
		held bool
	}{{"memory", true}, {"none", false}} {
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(os.Environ(), "EXITUNMAP_TEST_HOLD="+tt.mode)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: the process ended with %v: %s", tt.mode, err, out)
		}
		// The process is reaped: a child left is its holder, adopted.
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case tt.held && err != nil:
			t.Errorf("%s: no holder was left: %v", tt.mode, err)
		case tt.held && (!ws.Exited() || ws.ExitStatus() != 0):
			t.Errorf("%s: the holder %d ended with %v, want exit 0", tt.mode, pid, ws)
		case !tt.held && err != unix.ECHILD:
			t.Errorf("%s: a process (%d, %v) was left behind: want none", tt.mode, pid, err)
		}
	}
}

// Leave.holds says what Exit leaves to a child: the memory when asked,
// directories when given; nothing for the zero Leave.
func TestLeaveHolds(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(*Leave)
		want bool
	}{
		{"nothing", func(*Leave) {}, false},
		{"memory", (*Leave).HoldMemory, true},
		{"a directory", func(l *Leave) { l.RemoveDir("/nonexistent-dir") }, true},
	} {
		var l Leave
		tt.set(&l)
		if got := l.holds(); got != tt.want {
			t.Errorf("%s: holds() = %v, want %v", tt.name, got, tt.want)
		}
		if got, want := l.HoldsMemory(), tt.name == "memory"; got != want {
			t.Errorf("%s: HoldsMemory() = %v, want %v", tt.name, got, want)
		}
	}
	var nilLeave *Leave
	nilLeave.HoldMemory() // no panic: a nil Leave holds nothing
	if nilLeave.HoldsMemory() {
		t.Error("a nil Leave holds the memory")
	}
}
