//go:build linux

package test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestEgressNoVsock: a command whose network is a namespace of its own
// (proxy, isolated) makes no AF_VSOCK socket. Vsock is not per network
// namespace: such a socket reaches the hypervisor (CID 2) and the host's
// other VMs past the proxy, and shares the host's ports. Only the socket
// is made here; nothing is sent. seccomp answers before the kernel looks
// at the family, so EPERM is due on a host without vsock too.
func TestEgressNoVsock(t *testing.T) {
	requireIsolation(t)
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

// TestEgressFallbackTCPOnly: the best-effort fallback (no namespaces; here
// inside another sandbox, as in TestEgressFallback) holds the command to
// the proxy's port with Landlock's TCP rules, which cover TCP alone: an
// MPTCP socket, which the kernel makes for any user and which falls back
// to plain TCP against a server that does not speak it, must not be made,
// or it connects wherever it likes. The server is on loopback. seccomp
// answers before the kernel looks at the protocol: EPERM is due on a host
// without MPTCP too.
func TestEgressFallbackTCPOnly(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	hp := port(t, s.http)
	outer := writeProfile(t, f, "outer.toml", `extends = "workspace-write"
[network]
mode = "on"
[process]
pid_namespace = false
`)
	prof := writeProfile(t, f, "fallback.toml", fmt.Sprintf(`extends = "workspace-write"
enforcement = "best-effort"
[network]
mode = "proxy"
allow_hosts = ["allowed.test"]
connect_to = ["allowed.test=127.0.0.1:%s"]
`, hp))
	script := fmt.Sprintf(`python3 -c '
import socket
for name, proto in (("mptcp", 262), ("sctp", 132)):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
        s.settimeout(10)
        s.connect(("127.0.0.1", %s))
        s.sendall(b"GET /ok HTTP/1.0\r\nHost: x\r\n\r\n")
        print(name, "reached", s.recv(200))
    except OSError as e:
        print(name, "refused", e.errno)'`, hp)
	cmd := f.command("sandbox", "-p", outer, "-C", f.ws, "-w", f.ws, "--",
		gatedexecBin, "sandbox", "-p", prof, "-C", f.ws, "-w", f.ws, "--", "sh", "-c", script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "mptcp refused 1") || strings.Contains(string(out), "reached") {
		t.Errorf("a stream socket other than TCP under the fallback: want it refused (EPERM):\n%s", out)
	}
}
