//go:build linux

package linux

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestRunEgress: a run whose network goes through the proxy is served by
// a helper started ahead, its egress socket sent with its standard
// descriptors, as a run without network is; one that cannot be (stdin is
// not a file) by a helper started with the run. Either way the command's
// connection to an address the profile does not allow lands on the
// namespace's listener (the namespace routes every address to itself) and
// the runner's proxy refuses it, seen in the result: an address of the
// documentation range, which no packet leaves the namespace for. A
// long-lived runner's helpers, started between its runs, serve them too.
func TestRunEgress(t *testing.T) {
	requireRoot(t, "a network namespace with its routes, made ahead as root")
	requireLandlock(t)
	ws := t.TempDir()
	p := &sandbox.Profile{Name: "proxied", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkProxy, UnixSockets: true}
	// Accepted, then, the request read, closed by the proxy: nothing
	// read. Without the egress set-up the connect fails (no route), and
	// says why.
	script := `import socket
try:
    s = socket.create_connection(("192.0.2.1", 80), timeout=5)
    s.sendall(b"GET / HTTP/1.0\r\nHost: 192.0.2.1\r\n\r\n")
    print("accepted", s.recv(16))
except OSError as e:
    print("failed", e)
`
	for _, tt := range []struct {
		name  string
		stdin *strings.Reader // not a file: no helper is prestarted
	}{{"prestarted", nil}, {"started with the run", strings.NewReader("")}} {
		t.Run(tt.name, func(t *testing.T) {
			res, out := runServed(t, p, ws, []string{"python3", "-c", script}, tt.stdin)
			checkRefused(t, res, out)
		})
	}
	// A long-lived runner's second run takes the helper its first one
	// left started for it.
	t.Run("long-lived", func(t *testing.T) {
		r := &Runner{LongLived: true}
		defer r.Close()
		for range 2 {
			res, out := runOn(t, r, p, ws, []string{"python3", "-c", script}, nil)
			checkRefused(t, res, out)
		}
		if got := r.cache.pool.used.Load(); got != 1 {
			t.Errorf("runs served by a prestarted helper: %d, want the second", got)
		}
	})
}

// checkRefused fails the test unless the run's output and result say its
// connection was taken by the namespace and refused by the proxy.
func checkRefused(t *testing.T, res *sandbox.Result, out string) {
	t.Helper()
	if out != "accepted b''\n" {
		t.Errorf("the command's connection: %q, want it accepted and closed by the proxy", out)
	}
	if !slices.Contains(res.Layers, sandbox.LayerEgress) {
		t.Errorf("layers %v, want %s", res.Layers, sandbox.LayerEgress)
	}
	if !slices.ContainsFunc(res.Denied, func(d sandbox.Denial) bool { return d.Host == "192.0.2.1" && d.Port == 80 }) {
		t.Errorf("denials %+v, want 192.0.2.1:80", res.Denied)
	}
}
