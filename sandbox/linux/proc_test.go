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
