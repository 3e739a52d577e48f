//go:build linux

package linux

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

// The command's /dev is the same whether its helper was prestarted (which
// makes it before its spec comes, under the run's mounts) or started with
// the run (after them): read-only, its device nodes too (uid 0 needs no
// capability to chmod the host's), with a writable /dev/shm and devpts of
// its own, and nothing of the host's /dev mounts (a hidden file there is
// gone with the rest, and its mount with it).
func TestRunDev(t *testing.T) {
	requireRoot(t, "the mounts of a /dev of its own")
	requireLandlock(t)
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "protected"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A file the profile hides below the host's /dev: gone with the rest
	// of that /dev, however the command's is made.
	hidden, err := os.CreateTemp("/dev/shm", "gatedexec-test-")
	if err != nil {
		t.Fatal(err)
	}
	hidden.Close()
	t.Cleanup(func() { os.Remove(hidden.Name()) })
	// The mounts make the whole tree read-only (readOnlyTree), /dev then.
	p := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Protect: []string{filepath.Join(ws, "protected")}, Hide: []string{hidden.Name()},
		Network: sandbox.NetworkOff, UnixSockets: true}
	// The last mount on a path in mountinfo is the one on top: what the
	// command sees there.
	script := `echo shm > /dev/shm/f && cat /dev/shm/f; ls /dev/shm; touch /dev/new 2>/dev/null && echo made;` +
		` chmod 600 /dev/null 2>/dev/null && echo chmodded; echo > /dev/null || echo unwritable;` +
		` awk '$5 ~ /^\/dev(\/pts|\/shm)?$/ { top[$5] = $5 " " $6 " " $9 } END { print top["/dev"]; print top["/dev/pts"]; print top["/dev/shm"] }' /proc/self/mountinfo`
	want := "shm\nf\n/dev ro,nosuid,noexec,relatime tmpfs\n/dev/pts rw,nosuid,noexec,relatime devpts\n/dev/shm rw,nosuid,nodev,relatime tmpfs\n"
	// Nothing to protect or hide: no mounts but /dev's (its PID
	// namespace needs a mount namespace), and no read-only tree.
	bare := &sandbox.Profile{Name: "bare", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true}
	// Should a run change the host's /dev/null, the next one still finds
	// it as it was.
	t.Cleanup(func() { os.Chmod("/dev/null", 0o666) })
	for _, tt := range []struct {
		name  string
		p     *sandbox.Profile
		stdin *strings.Reader // not a file: no helper is prestarted
	}{{"prestarted", p, nil}, {"started with the run", p, strings.NewReader("")}, {"no mount plan", bare, nil}} {
		t.Run(tt.name, func(t *testing.T) {
			if _, out := runServed(t, tt.p, ws, []string{"sh", "-c", script}, tt.stdin); out != want {
				t.Errorf("/dev:\n%s\nwant\n%s", out, want)
			}
			if st, err := os.Stat("/dev/null"); err != nil || st.Mode().Perm() != 0o666 {
				t.Errorf("the host's /dev/null after the run: %v, %v", st.Mode(), err)
			}
		})
	}
}

// runServed runs argv under p in ws on a one-shot Runner of its own, with
// stdin nil, which a helper started ahead can serve, or a reader that is
// not a file, which a helper started with the run must: it fails the test
// unless the run succeeds, served by the helper that stdin says, and
// returns the run's result and output.
func runServed(t *testing.T, p *sandbox.Profile, ws string, argv []string, stdin *strings.Reader) (*sandbox.Result, string) {
	t.Helper()
	r := &Runner{}
	res, out := runOn(t, r, p, ws, argv, stdin)
	if got, prestarted := r.cache.pool.used.Load(), stdin == nil; (got == 1) != prestarted {
		t.Errorf("runs served by a prestarted helper: %d, want one: %v", got, prestarted)
	}
	return res, out
}

// runOn runs argv under p in ws on r, stdin nil or a reader: it fails the
// test unless the run succeeds, and returns its result and output.
func runOn(t *testing.T, r *Runner, p *sandbox.Profile, ws string, argv []string, stdin *strings.Reader) (*sandbox.Result, string) {
	t.Helper()
	c := &Command{Argv: argv, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Profile: p}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if stdin != nil {
		c.Stdin = stdin
	}
	res, err := r.Run(context.Background(), c)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v, %+v (stderr %q)", err, res, errb.String())
	}
	return res, out.String()
}
