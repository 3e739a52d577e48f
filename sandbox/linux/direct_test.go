//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestDirect: an unrestricted profile runs without the helper, with the
// same outcome the helper gives, no_new_privs and a session of its own;
// the thread that set no_new_privs does not outlive the run.
func TestDirect(t *testing.T) {
	full := func() *sandbox.Profile {
		return &sandbox.Profile{Name: "full", Unrestricted: true, ReadAll: true, Write: []string{"/"}, Network: sandbox.NetworkOn}
	}
	r := &Runner{Exe: "/nonexistent-helper"} // any use of the helper fails the run
	for _, tt := range []struct {
		name   string
		argv   []string
		env    []string
		code   int
		err    error
		stdout string
	}{
		{"status", []string{"sh", "-c", "exit 3"}, nil, 3, nil, ""},
		{"no_new_privs and session", []string{"sh", "-c", "grep NoNewPrivs /proc/self/status; [ $(ps -o sid= -p $$) -eq $$ ] && echo leader"},
			[]string{"PATH=/usr/bin:/bin"}, 0, nil, "NoNewPrivs:\t1\nleader\n"},
		{"environment is the command's only", []string{"sh", "-c", "echo ${HOME:-none}"}, []string{"PATH=/usr/bin:/bin"}, 0, nil, "none\n"},
		{"not found", []string{"no-such-program-xyz"}, nil, 127, sandbox.ErrNotFound, ""},
		{"cannot exec", []string{"/etc/hostname"}, nil, 0, sandbox.ErrCannotExec, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := r.Run(context.Background(), &Command{Argv: tt.argv, Env: tt.env, Stdout: &out, Profile: full()})
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if res != nil && res.ExitCode != tt.code && tt.err != sandbox.ErrCannotExec {
				t.Errorf("exit %d, want %d", res.ExitCode, tt.code)
			}
			if out.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", out.String(), tt.stdout)
			}
		})
	}
	// Direct or not, the same spec: a profile with a layer takes the helper.
	p := full()
	p.Limits.NoFile = 64
	if _, err := r.Run(context.Background(), &Command{Argv: []string{"true"}, Profile: p}); err == nil {
		t.Error("a profile with rlimits ran without the helper")
	}
	for i := 0; noNewPrivsThreads(t) > 0; i++ {
		if i == 500 {
			t.Fatal("a thread of the test process has no_new_privs after the runs")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// noNewPrivsThreads counts this process's threads with no_new_privs but
// the main one: a locked goroutine that ends on the main thread parks it
// for good instead of ending it (the process would end with it), so no
// goroutine runs there again.
func noNewPrivsThreads(t *testing.T) int {
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	main := fmt.Sprintf("/proc/self/task/%d/status", os.Getpid())
	for _, f := range tasks {
		if f == main {
			continue
		}
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), "NoNewPrivs:\t1") {
			n++
		}
	}
	return n
}
