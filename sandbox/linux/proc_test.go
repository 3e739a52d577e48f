//go:build linux

package linux

import (
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestProc: a proc started without os/exec gets the descriptors it is
// given at their numbers (nil closed) and an empty environment, reports
// how it ended once reaped, and refuses a Kill after that.
func TestProc(t *testing.T) {
	sh := "/bin/sh"
	for _, tt := range []struct {
		name   string
		script string
		kill   bool
		code   int
		signal syscall.Signal
		out    string
	}{
		{name: "exit code", script: "exit 3", code: 3},
		// Descriptor 3 is the write end given; 4 is nil, closed.
		{name: "descriptors", script: `echo "home=${HOME-unset}" >&3; echo x >&4 2>/dev/null || echo closed >&3`, out: "home=unset\nclosed\n"},
		{name: "killed", script: "exec sleep 60", kill: true, signal: syscall.SIGKILL},
	} {
		t.Run(tt.name, func(t *testing.T) {
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
			p, err := startProc(sh, []string{"sh", "-c", tt.script}, []*os.File{null, null, null, w, nil}, &syscall.SysProcAttr{Setsid: true})
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if p.Pid() <= 0 {
				t.Fatalf("pid %d", p.Pid())
			}
			if _, done := p.Status(); done {
				t.Fatal("reaped before Wait")
			}
			if tt.kill {
				if err := p.Kill(); err != nil {
					t.Fatal(err)
				}
			}
			// Two waits at once: one reaps, both return.
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range errs {
				wg.Go(func() { errs[i] = p.Wait() })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			ws, done := p.Status()
			if !done {
				t.Fatal("not reaped after Wait")
			}
			if tt.signal != 0 {
				if !ws.Signaled() || ws.Signal() != tt.signal {
					t.Errorf("status %v, want killed by %v", ws, tt.signal)
				}
			} else if !ws.Exited() || ws.ExitStatus() != tt.code {
				t.Errorf("status %v, want exit %d", ws, tt.code)
			}
			out := make([]byte, 256)
			n, _ := r.Read(out)
			if got := string(out[:n]); !strings.Contains(got, tt.out) {
				t.Errorf("wrote %q, want %q", got, tt.out)
			}
			if err := p.Kill(); !errors.Is(err, errReaped) {
				t.Errorf("Kill after Wait: %v, want %v", err, errReaped)
			}
			if err := p.Wait(); err != nil {
				t.Errorf("Wait again: %v", err)
			}
		})
	}
}

// TestProcStartFails: a program that cannot be executed is an error
// naming it, and nothing is left to reap.
func TestProcStartFails(t *testing.T) {
	missing := "/nonexistent/gatedexec-helper"
	p, err := startProc(missing, []string{"x"}, nil, &syscall.SysProcAttr{Setsid: true})
	if err == nil || p != nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("startProc(%s) = %v, %v; want ENOENT naming it", missing, p, err)
	}
}

// TestWaitEnd: WaitEnd returns true once the report holds a helper's end,
// without reading on to the report's end (its writer still open), with
// what came before kept in Report; false at the report's end without it,
// Report then whole; false at once without a report. A report it cannot
// take (more than maxReport without an end) kills the helper, which might
// otherwise wait for its socket forever while the caller waits for its
// exit.
func TestWaitEnd(t *testing.T) {
	pipe := func(t *testing.T) (*os.File, *os.File) {
		t.Helper()
		var fds [2]int
		if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		r, w := os.NewFile(uintptr(fds[0]), "report"), os.NewFile(uintptr(fds[1]), "report")
		t.Cleanup(func() { r.Close(); w.Close() })
		return r, w
	}
	t.Run("end", func(t *testing.T) {
		r, w := pipe(t)
		w.WriteString("notfound no such file")
		w.WriteString("\x00end 32512\n")
		p := &proc{rep: r}
		if !p.WaitEnd() {
			t.Fatal("WaitEnd = false with the end in the report")
		}
		if got := string(p.Report()); got != "notfound no such file\x00end 32512\n" {
			t.Errorf("Report = %q", got)
		}
	})
	t.Run("exit without end", func(t *testing.T) {
		r, w := pipe(t)
		w.WriteString("setup boom")
		w.Close()
		p := &proc{rep: r}
		if p.WaitEnd() {
			t.Fatal("WaitEnd = true without an end")
		}
		if got := string(p.Report()); got != "setup boom" {
			t.Errorf("Report = %q", got)
		}
	})
	t.Run("no report", func(t *testing.T) {
		if (&proc{}).WaitEnd() {
			t.Fatal("WaitEnd = true without a report")
		}
	})
	t.Run("too long", func(t *testing.T) {
		r, w := pipe(t)
		p, err := startProc("/bin/sleep", []string{"sleep", "60"}, nil, &syscall.SysProcAttr{Setsid: true})
		if err != nil {
			t.Fatal(err)
		}
		p.rep = r
		go func() {
			chunk := []byte(strings.Repeat("x", 4096))
			for i := 0; i <= maxReport/len(chunk); i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}()
		if p.WaitEnd() {
			t.Fatal("WaitEnd = true without an end")
		}
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if ws, _ := p.Status(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the helper ended with %v, want killed", ws)
		}
	})
}
