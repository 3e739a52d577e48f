package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEscapeDirectoryOnStdio: a directory passed as a standard descriptor
// would take the command past every mount of its namespace through
// /proc/self/fd/N/NAME (a hidden key, the host's /tmp, a protected
// .git/config): it is refused before anything runs, on stdin, stdout and
// stderr, for every restricted profile.
func TestEscapeDirectoryOnStdio(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			config := filepath.Join(f.ws, ".git", "config")
			before := readFile(t, config)
			script := "cat /proc/self/fd/%[1]d%[2]s; echo '[alias] x = !id' >> /proc/self/fd/%[1]d%[3]s"
			for _, prof := range restricted {
				for fd := 0; fd <= 2; fd++ {
					root, err := os.Open("/")
					if err != nil {
						t.Fatal(err)
					}
					cmd := f.command("sandbox", "-p", prof, "-C", f.ws, "-w", f.ws, "--", "sh", "-c", fmt.Sprintf(script, fd, f.secret, config))
					var out strings.Builder
					cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, &out, &out
					switch fd {
					case 0:
						cmd.Stdin = root
					case 1:
						cmd.Stdout = root
					case 2:
						cmd.Stderr = root
					}
					code := exitOf(t, cmd.Run())
					root.Close()
					if code != 125 || strings.Contains(out.String(), "SECRET") || readFile(t, config) != before {
						t.Errorf("%s: / on descriptor %d: want exit 125 and nothing read or written, got %d, .git/config changed=%v:\n%s",
							prof, fd, code, readFile(t, config) != before, out.String())
					}
					if fd != 2 && !strings.Contains(out.String(), "pass a file or a pipe") {
						t.Errorf("%s: / on descriptor %d: no reason given:\n%s", prof, fd, out.String())
					}
				}
			}
			// full-access has no sandbox to get past: a directory is the
			// caller's business there.
			root, err := os.Open("/")
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			cmd := f.command("sandbox", "-p", "full-access", "-C", f.ws, "--", "true")
			cmd.Stdin = root
			if code := exitOf(t, cmd.Run()); code != 0 {
				t.Errorf("full-access with / on stdin: exit %d", code)
			}
		})
	}
}

// TestEscapeInheritedStderr: a protected file the caller passes read-only
// on stderr is reopened in the namespace like stdin and stdout, so
// /proc/self/fd/2 cannot reopen it for writing past the read-only mount.
func TestEscapeInheritedStderr(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			config := filepath.Join(f.ws, ".git", "config")
			before := readFile(t, config)
			in, err := os.Open(config)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			cmd := f.command("sandbox", "-p", "workspace-write", "-C", f.ws, "-w", f.ws, "--", "sh", "-c", "echo pwned > /proc/self/fd/2")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, in
			code := exitOf(t, cmd.Run())
			if got := readFile(t, config); got != before || code == 0 {
				t.Errorf(".git/config on stderr: exit %d, content now %q:\n%s", code, got, out.String())
			}
		})
	}
}
