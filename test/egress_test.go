package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// egressServers are the servers the egress tests reach: on loopback only,
// named to the command through the profile's connect_to, so no traffic
// goes anywhere else.
type egressServers struct {
	http, https *httptest.Server
	// sni records the TLS server names the HTTPS server saw.
	sni sync.Map
	// streams counts the /stream responses in progress.
	streams atomic.Int32
	git     string // a bare repository served over dumb HTTP at /git/repo.git
	ssh     string // a server that answers a line with "SSH-2.0-echo " and it
}

func startEgressServers(t *testing.T) *egressServers {
	t.Helper()
	s := &egressServers{}
	s.git = t.TempDir()
	repo := filepath.Join(s.git, "repo.git")
	src := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", src},
		{"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"},
		{"clone", "-q", "--bare", src, repo},
		{"-C", repo, "update-server-info"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "ok host=%s\n", r.Host)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		s.streams.Add(1)
		defer s.streams.Add(-1)
		buf := make([]byte, 32<<10)
		for {
			if _, err := w.Write(buf); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(10 * time.Millisecond)
		}
	})
	mux.Handle("/git/", http.StripPrefix("/git/", http.FileServer(http.Dir(s.git))))
	s.http = httptest.NewServer(mux)
	t.Cleanup(s.http.Close)
	s.https = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.sni.Store(r.TLS.ServerName, true)
		fmt.Fprintf(w, "tls ok sni=%s\n", r.TLS.ServerName)
	}))
	s.https.StartTLS()
	t.Cleanup(s.https.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s.ssh = l.Addr().String()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				io.WriteString(c, "SSH-2.0-echo "+line)
			}()
		}
	}()
	return s
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// egressProfile is a proxy profile allowing allowed.test and git.test,
// both pinned to the loopback servers, and denying blocked.test.
func (s *egressServers) profile(t *testing.T, f fixture, extra string) string {
	t.Helper()
	hp, sp := port(t, s.http), port(t, s.https)
	return writeProfile(t, f, "egress.toml", fmt.Sprintf(`extends = "workspace-write"
[network]
mode = "proxy"
allow_hosts = ["allowed.test", "git.test"%s]
deny_hosts = ["blocked.test"]
connect_to = ["allowed.test:80=127.0.0.1:%s", "allowed.test:443=127.0.0.1:%s", "allowed.test:22=%s", "git.test=127.0.0.1:%s",
  "later.test:80=127.0.0.1:%s", "blocked.test=127.0.0.1:%s"]
`, extra, hp, sp, s.ssh, hp, hp, hp))
}

// egressRun is what `sandbox --json` said of one command under the proxy.
type egressResult struct {
	stdout, stderr string
	code           int
	Denials        []struct {
		Kind string `json:"kind"`
		Host string `json:"host"`
		Port int    `json:"port"`
	} `json:"denials"`
	Layers []string `json:"layers"`
}

func (r egressResult) denied(host string, port int) bool {
	for _, d := range r.Denials {
		if d.Kind == "net" && d.Host == host && d.Port == port {
			return true
		}
	}
	return false
}

func sandboxEgress(t *testing.T, f fixture, profile, script string) egressResult {
	t.Helper()
	cmd := f.command("sandbox", "--json", "-p", profile, "-C", f.ws, "-w", f.ws, "--", "sh", "-c", script)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	r := egressResult{code: exitOf(t, cmd.Run())}
	r.stdout, r.stderr = so.String(), se.String()
	i := strings.LastIndex(r.stderr, "\n{")
	if err := json.Unmarshal([]byte(r.stderr[i+1:]), &r); err != nil {
		t.Fatalf("sandbox --json: %v\n%s", err, r.stderr)
	}
	return r
}

// TestEgressClients: through the proxy an allowed name works for clients
// that read the proxy variables (curl, python urllib, git) and for those
// that ignore them (a raw socket, curl --noproxy), over HTTP, HTTPS (judged
// by its server name, not terminated) and SOCKS5.
func TestEgressClients(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	prof := s.profile(t, f, "")
	cases := []struct {
		name, script, want string
	}{
		{"curl via HTTP_PROXY", `curl -sS -m 10 http://allowed.test/ok`, "ok host=allowed.test"},
		{"curl direct, DNS stub", `curl -sS -m 10 --noproxy '*' http://allowed.test/ok`, "ok host=allowed.test"},
		{"curl https via CONNECT", `curl -sSk -m 10 https://allowed.test/ok`, "tls ok sni=allowed.test"},
		{"curl https direct, SNI", `curl -sSk -m 10 --noproxy '*' https://allowed.test/ok`, "tls ok sni=allowed.test"},
		{"curl SOCKS5", `curl -sS -m 10 -x "$ALL_PROXY" http://allowed.test/ok`, "ok host=allowed.test"},
		{"python urllib", `python3 -c 'import urllib.request; print(urllib.request.urlopen("http://allowed.test/ok", timeout=10).read().decode())'`, "ok host=allowed.test"},
		{"raw socket ignoring proxies", `python3 -c '
import socket
s = socket.create_connection(("allowed.test", 80), timeout=10)
s.sendall(b"GET /ok HTTP/1.0\r\nHost: allowed.test\r\n\r\n")
print(s.makefile("rb").read().decode())'`, "ok host=allowed.test"},
		{"git ls-remote http", `git ls-remote http://git.test/git/repo.git`, "refs/heads/main"},
		{"raw socket to port 22", `python3 -c '
import socket
s = socket.create_connection(("allowed.test", 22), timeout=10)
s.sendall(b"SSH-2.0-test\r\n")
print(s.recv(100).decode())'`, "SSH-2.0-echo SSH-2.0-test"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := sandboxEgress(t, f, prof, c.script)
			if r.code != 0 || !strings.Contains(r.stdout, c.want) {
				t.Errorf("exit %d, want 0 and %q in the output:\n%s\n%s", r.code, c.want, r.stdout, r.stderr)
			}
			if len(r.Denials) != 0 {
				t.Errorf("denials %+v, want none", r.Denials)
			}
		})
	}
	if _, ok := s.sni.Load("allowed.test"); !ok {
		t.Errorf("the HTTPS server never saw the server name allowed.test: the TLS was not passed through")
	}
}

// TestEgressRefusals: a name no rule allows, a denied one, an address the
// client dials itself (public or private), UDP, and a lookup of a refused
// name all fail, with a denial that names the host.
func TestEgressRefusals(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	prof := s.profile(t, f, "")
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port
	hp, _ := atoiPort(port(t, s.http))
	cases := []struct {
		name, script string
		host         string
		port         int
	}{
		{"unlisted name via proxy", `curl -sSf -m 10 http://later.test/ok`, "later.test", 80},
		{"denied name via CONNECT", `curl -sSfk -m 10 https://blocked.test/ok`, "blocked.test", 443},
		{"unlisted name direct", `curl -sSf -m 10 --noproxy '*' http://later.test/ok`, "later.test", 0},
		{"public address direct", `curl -sSf -m 10 --noproxy '*' http://203.0.113.9/ok`, "203.0.113.9", 80},
		{"private address via SOCKS5", `curl -sSf -m 10 -x "$ALL_PROXY" http://10.1.2.3/ok`, "10.1.2.3", 80},
		{"loopback address via proxy", `curl -sSf -m 10 http://127.0.0.1:` + port(t, s.http) + `/ok`, "127.0.0.1", hp},
		{"lookup of a denied name", `getent hosts blocked.test`, "blocked.test", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := sandboxEgress(t, f, prof, c.script)
			if r.code == 0 || strings.Contains(r.stdout, "ok host") {
				t.Errorf("exit %d, want a failure:\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if !r.denied(c.host, c.port) {
				t.Errorf("denials %+v, want net %s port %d", r.Denials, c.host, c.port)
			}
		})
	}
	t.Run("UDP to the host's loopback", func(t *testing.T) {
		r := sandboxEgress(t, f, prof, fmt.Sprintf(`python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.connect(("127.0.0.1", %d))
s.send(b"leak")
try:
    s.recv(10)
except OSError as e:
    print("refused:", e)
'`, udpPort))
		if !strings.Contains(r.stdout, "refused:") {
			t.Errorf("the UDP send was not refused:\n%s\n%s", r.stdout, r.stderr)
		}
		udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if n, _, err := udp.ReadFrom(make([]byte, 16)); err == nil {
			t.Errorf("the host's UDP socket received %d bytes from the sandbox", n)
		}
	})
	t.Run("ICMP and raw sockets", func(t *testing.T) {
		r := sandboxEgress(t, f, prof, `python3 -c '
import socket
for args in ((socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP), (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP), (socket.AF_PACKET, socket.SOCK_RAW, 0)):
    try:
        socket.socket(*args)
        print("opened", args)
    except OSError as e:
        print("refused", e.errno)
'`)
		if strings.Contains(r.stdout, "opened") || strings.Count(r.stdout, "refused") != 3 {
			t.Errorf("want all three refused:\n%s\n%s", r.stdout, r.stderr)
		}
	})
}

func atoiPort(s string) (int, error) {
	var n int
	_, err := fmt.Sscan(s, &n)
	return n, err
}

// TestEgressEscalation: a refused host is offered to the approver as that
// host alone, and once approved the command runs again and reaches it;
// every connection is an audit record.
func TestEgressEscalation(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	prof := s.profile(t, f, "")
	asked := filepath.Join(f.home, "asked")
	approver := filepath.Join(f.home, "approve.sh")
	writeScript(t, approver, `req=$(cat); printf '%s\n' "$req" >> '`+asked+`'
id=$(printf '%s' "$req" | sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
printf '{"id":"%s","outcome":"approved"}\n' "$id"`+"\n")
	audit := filepath.Join(f.home, "audit.jsonl")
	cmd := f.command("run", "--json", "-p", prof, "--approval-policy", "on-failure", "--approver", "exec:"+approver,
		"--audit-log", audit, "-C", f.ws, "-w", f.ws, "--", "curl", "-sSf", "-m", "10", "--noproxy", "*", "http://later.test/ok")
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	code := exitOf(t, cmd.Run())
	if code != 0 || !strings.Contains(so.String(), "ok host=later.test") {
		t.Fatalf("exit %d, want the escalated re-run to reach later.test:\n%s\n%s", code, so.String(), se.String())
	}
	var res struct {
		Escalated bool `json:"escalated"`
	}
	line := se.String()[strings.LastIndex(se.String(), "\n{")+1:]
	if err := json.Unmarshal([]byte(line), &res); err != nil || !res.Escalated {
		t.Errorf("result %s: want escalated", line)
	}
	q, _ := os.ReadFile(asked)
	if !strings.Contains(string(q), "connections to later.test") {
		t.Errorf("the approver was asked %s, want connections to later.test", q)
	}
	log, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var allowed, denied bool
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		var r struct {
			Kind       string `json:"kind"`
			Connection *struct {
				Host     string `json:"host"`
				Decision string `json:"decision"`
				BytesIn  int64  `json:"bytes_in"`
			} `json:"connection"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		if r.Kind != "connection" || r.Connection == nil || r.Connection.Host != "later.test" {
			continue
		}
		switch r.Connection.Decision {
		case "deny":
			denied = true
		case "allow":
			allowed = allowed || r.Connection.BytesIn > 0
		}
	}
	if !denied || !allowed {
		t.Errorf("audit log: want a denied and then an allowed connection to later.test with bytes:\n%s", log)
	}
}

// TestEgressReliability: a hundred connections at once through one run,
// and a run whose gatedexec is killed mid-transfer loses its network and
// leaves nothing behind.
func TestEgressReliability(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	prof := s.profile(t, f, "")
	t.Run("100 concurrent connections", func(t *testing.T) {
		r := sandboxEgress(t, f, prof, `python3 -c '
import socket, threading
ok = []
def get():
    s = socket.create_connection(("allowed.test", 80), timeout=20)
    s.sendall(b"GET /ok HTTP/1.0\r\nHost: allowed.test\r\n\r\n")
    if b"ok host" in s.makefile("rb").read():
        ok.append(1)
ts = [threading.Thread(target=get) for _ in range(100)]
[t.start() for t in ts]
[t.join() for t in ts]
print("ok", len(ok))
'`)
		if !strings.Contains(r.stdout, "ok 100") {
			t.Errorf("want 100 answers:\n%s\n%s", r.stdout, r.stderr)
		}
	})
	t.Run("gatedexec killed mid-transfer", func(t *testing.T) {
		cmd := f.command("sandbox", "-p", prof, "-C", f.ws, "-w", f.ws, "--", "curl", "-sS", "-o", "/dev/null", "--noproxy", "*",
			"http://allowed.test/stream?egress-killed")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for s.streams.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if s.streams.Load() == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the download never started")
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		for s.streams.Load() != 0 && time.Now().Before(deadline.Add(10*time.Second)) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := s.streams.Load(); n != 0 {
			t.Errorf("%d downloads still carried after gatedexec was killed", n)
		}
		waitGone(t, "egress-killed")
	})
}

// TestEgressNetworkRules: the rules files' network_rule entries join the
// profile's hosts by severity: a prompt asks the approver about that host
// and port when the connection is made, and a forbidden one beats the
// profile's allow.
func TestEgressNetworkRules(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	prof := s.profile(t, f, "")
	rules := filepath.Join(f.home, "net.rules")
	writeAs(t, f, rules, `prefix_rule(pattern = ["curl"], decision = "allow")
network_rule(host = "later.test", protocol = "http", decision = "prompt", justification = "asks")
network_rule(host = "git.test", protocol = "http", decision = "forbidden")
`)
	asked := filepath.Join(f.home, "asked")
	approver := filepath.Join(f.home, "approve.sh")
	writeScript(t, approver, `req=$(cat); printf '%s\n' "$req" >> '`+asked+`'
id=$(printf '%s' "$req" | sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
printf '{"id":"%s","outcome":"approved"}\n' "$id"`+"\n")
	run := func(url string) (string, int) {
		cmd := f.command("run", "-r", rules, "-p", prof, "--approval-policy", "on-request", "--approver", "exec:"+approver,
			"-C", f.ws, "-w", f.ws, "--", "curl", "-sSf", "-m", "10", "--noproxy", "*", url)
		out, err := cmd.CombinedOutput()
		return string(out), exitOf(t, err)
	}
	if out, code := run("http://later.test/ok"); code != 0 || !strings.Contains(out, "ok host=later.test") {
		t.Errorf("prompt rule, approved: exit %d\n%s", code, out)
	}
	q, _ := os.ReadFile(asked)
	if !strings.Contains(string(q), "connections to later.test:80") {
		t.Errorf("the approver was asked %s, want connections to later.test:80", q)
	}
	if out, code := run("http://git.test/ok"); code == 0 || strings.Contains(out, "ok host") {
		t.Errorf("forbidden network_rule over allow_hosts: exit %d, want a failure\n%s", code, out)
	}
}

// TestEgressFallback: where no namespace can be made (here: inside another
// sandbox, whose seccomp refuses unshare, as containers do), a strict
// proxy profile does not run, and a best-effort one runs with the proxy on
// the host's loopback: proxy-aware clients reach the allowed hosts, a
// direct connection and UDP are refused, and the result says so.
func TestEgressFallback(t *testing.T) {
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
	profile := func(enforcement string) string {
		return writeProfile(t, f, enforcement+".toml", fmt.Sprintf(`extends = "workspace-write"
enforcement = %q
[network]
mode = "proxy"
allow_hosts = ["allowed.test"]
connect_to = ["allowed.test=127.0.0.1:%s"]
`, enforcement, hp))
	}
	nested := func(prof, script string) (string, string, int) {
		cmd := f.command("sandbox", "-p", outer, "-C", f.ws, "-w", f.ws, "--",
			gatedexecBin, "sandbox", "--json", "-p", prof, "-C", f.ws, "-w", f.ws, "--", "sh", "-c", script)
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		code := exitOf(t, cmd.Run())
		return so.String(), se.String(), code
	}
	if out, errOut, code := nested(profile("strict"), "echo ran"); code != 125 || strings.Contains(out, "ran") {
		t.Errorf("strict without namespaces: exit %d, want 125 and nothing run:\n%s%s", code, out, errOut)
	}
	out, errOut, _ := nested(profile("best-effort"), `curl -sS -m 10 http://allowed.test/ok
curl -sS -m 10 --noproxy '*' http://127.0.0.1:`+hp+`/ok || echo direct-refused
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)' 2>/dev/null || echo udp-refused`)
	for _, want := range []string{"ok host=allowed.test", "direct-refused", "udp-refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("best-effort fallback: want %q in the output:\n%s%s", want, out, errOut)
		}
	}
	if strings.Count(out, "ok host") != 1 {
		t.Errorf("a direct connection got through:\n%s", out)
	}
	if !strings.Contains(errOut, `"egress-fallback"`) || !strings.Contains(errOut, `"missing":["mountns","netns","egress","pidns"]`) {
		t.Errorf("the result does not say the fallback was taken:\n%s", errOut)
	}
}

// TestEgressAlways: "always" for a refused host writes a network_rule for
// it to the user's rules, and the next run reaches the host unasked.
func TestEgressAlways(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	prof := s.profile(t, f, "")
	approver := filepath.Join(f.home, "always.sh")
	writeScript(t, approver, `id=$(sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
printf '{"id":"%s","outcome":"approved_always"}\n' "$id"`+"\n")
	run := func(approver string) (string, int) {
		cmd := f.command("run", "-p", prof, "--approval-policy", "on-failure", "--approver", approver,
			"-C", f.ws, "-w", f.ws, "--", "curl", "-sSf", "-m", "10", "--noproxy", "*", "http://later.test/ok")
		out, err := cmd.CombinedOutput()
		return string(out), exitOf(t, err)
	}
	if out, code := run("exec:" + approver); code != 0 || !strings.Contains(out, "ok host=later.test") {
		t.Fatalf("approved always: exit %d\n%s", code, out)
	}
	rules, err := os.ReadFile(filepath.Join(f.home, ".config", "gatedexec", "rules", "default.rules"))
	if err != nil || !strings.Contains(string(rules), `network_rule(host="later.test", protocol="https", decision="allow", justification="approved at a prompt: public addresses only")`) {
		t.Fatalf("user rules after always: %v\n%s", err, rules)
	}
	if out, code := run("deny"); code != 0 || !strings.Contains(out, "ok host=later.test") {
		t.Errorf("the next run with the written rule: exit %d\n%s", code, out)
	}
}

// TestEgressAlwaysPublicOnly: the network_rule an "always" answer writes
// does not lift the refusal of private and loopback answers. The approver
// saw a name; a name whose owner points it inside later (DNS rebinding)
// reached the host's loopback on every run after the answer.
func TestEgressAlwaysPublicOnly(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	s := startEgressServers(t)
	prof := writeProfile(t, f, "egress-open.toml", `extends = "workspace-write"
[network]
mode = "proxy"
allow_hosts = ["allowed.test"]
`)
	approver := filepath.Join(f.home, "always.sh")
	writeScript(t, approver, `id=$(sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
printf '{"id":"%s","outcome":"approved_always"}\n' "$id"`+"\n")
	// localhost resolves through /etc/hosts, to loopback alone.
	url := "http://localhost:" + port(t, s.http) + "/ok"
	run := func(approver string) (string, int) {
		cmd := f.command("run", "-p", prof, "--approval-policy", "on-failure", "--approver", approver,
			"-C", f.ws, "-w", f.ws, "--", "curl", "-sSf", "-m", "10", url)
		out, err := cmd.CombinedOutput()
		return string(out), exitOf(t, err)
	}
	if out, code := run("exec:" + approver); code == 0 || strings.Contains(out, "ok host=") {
		t.Fatalf("approved always, the escalated run reached loopback: exit %d\n%s", code, out)
	}
	rules, err := os.ReadFile(filepath.Join(f.home, ".config", "gatedexec", "rules", "default.rules"))
	if err != nil || !strings.Contains(string(rules), `network_rule(host="localhost"`) {
		t.Fatalf("user rules after always: %v\n%s", err, rules)
	}
	if out, code := run("deny"); code == 0 || strings.Contains(out, "ok host=") {
		t.Errorf("the next run with the rule always wrote reached loopback: exit %d\n%s", code, out)
	}
}
