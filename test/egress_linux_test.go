//go:build linux

package test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEgressNoVsock: a command whose network is a namespace of its own
// (proxy, isolated) makes no AF_VSOCK socket. Vsock is not per network
// namespace: such a socket reaches the hypervisor (CID 2) and the host's
// other VMs past the proxy, and shares the host's ports. Only the socket
// is made here; nothing is sent.
func TestEgressNoVsock(t *testing.T) {
	requireIsolation(t)
	fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skipf("this host makes no AF_VSOCK socket (%v): nothing to escape by", err)
	}
	unix.Close(fd)
	f := newFixture(t)
	s := startEgressServers(t)
	isolated := writeProfile(t, f, "isolated.toml", "extends = \"workspace-write\"\n[network]\nmode = \"isolated\"\n")
	script := `python3 -c '
import socket
try:
    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    print("vsock-made")
except OSError as e:
    print("vsock-refused", e.errno)'`
	for _, prof := range []string{s.profile(t, f, ""), isolated} {
		r := sandboxEgress(t, f, prof, script)
		if !strings.Contains(r.stdout, "vsock-refused 1") {
			t.Errorf("%s: want the AF_VSOCK socket refused (EPERM):\n%s\n%s", filepath.Base(prof), r.stdout, r.stderr)
		}
	}
}
