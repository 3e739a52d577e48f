package egress

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// query builds a DNS query for name and type.
func query(id uint16, name string, typ uint16) []byte {
	b := binary.BigEndian.AppendUint16(nil, id)
	b = append(b, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0) // RD, one question
	for _, l := range strings.Split(name, ".") {
		b = append(b, byte(len(l)))
		b = append(b, l...)
	}
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, typ)
	return binary.BigEndian.AppendUint16(b, dnsClassIN)
}

// parsed reads an answer's rcode and its first A/AAAA address.
func parsed(t *testing.T, b []byte) (rcode int, addr netip.Addr) {
	t.Helper()
	if len(b) < 12 {
		t.Fatalf("answer of %d bytes", len(b))
	}
	rcode = int(b[3] & 0xf)
	if binary.BigEndian.Uint16(b[6:8]) == 0 {
		return rcode, netip.Addr{}
	}
	// The answer ends with RDLENGTH and the address.
	n := int(binary.BigEndian.Uint16(b[len(b)-6 : len(b)-4]))
	if n == 16 {
		n = int(binary.BigEndian.Uint16(b[len(b)-18 : len(b)-16]))
	}
	addr, _ = netip.AddrFromSlice(b[len(b)-n:])
	return rcode, addr
}

func TestDNSAnswer(t *testing.T) {
	p := &Proxy{Policy: &Policy{Rules: []Rule{
		{Pattern: "allowed.test", Decision: Allow}, {Pattern: "ask.test", Decision: Prompt},
		{Pattern: "*.blocked.test", Decision: Deny, Source: "deny_hosts"},
	}}}
	p.init()
	for _, c := range []struct {
		name   string
		typ    uint16
		rcode  int
		stand  bool
		denial bool
	}{
		{"allowed.test", dnsTypeA, dnsRcodeOK, true, false},
		{"ALLOWED.test", dnsTypeA, dnsRcodeOK, true, false},
		{"ask.test", dnsTypeA, dnsRcodeOK, true, false},
		{"allowed.test", dnsTypeAAAA, dnsRcodeOK, false, false},
		{"allowed.test", 16 /* TXT */, dnsRcodeOK, false, false},
		{"other.test", dnsTypeA, dnsRcodeNXDomain, false, true},
		{"x.blocked.test", dnsTypeAAAA, dnsRcodeNXDomain, false, true},
		{"1.0.0.127.in-addr.arpa", 12 /* PTR */, dnsRcodeNXDomain, false, false},
	} {
		before := len(p.Denials())
		rcode, addr := parsed(t, p.answer(query(7, c.name, c.typ)))
		if rcode != c.rcode || addr.IsValid() != c.stand || c.stand && !StandIns.Contains(addr) {
			t.Errorf("%s type %d: rcode %d addr %v; want rcode %d, stand-in %v", c.name, c.typ, rcode, addr, c.rcode, c.stand)
		}
		if got := len(p.Denials()) > before; got != c.denial {
			t.Errorf("%s type %d: denial recorded %v, want %v", c.name, c.typ, got, c.denial)
		}
	}
	_, a1 := parsed(t, p.answer(query(1, "allowed.test", dnsTypeA)))
	_, a2 := parsed(t, p.answer(query(2, "Allowed.Test", dnsTypeA)))
	_, a3 := parsed(t, p.answer(query(3, "ask.test", dnsTypeA)))
	if a1 != a2 || a1 == a3 {
		t.Errorf("stand-ins %v %v %v: want one address per name", a1, a2, a3)
	}
	if n, ok := p.names.name(a3); !ok || n != "ask.test" {
		t.Errorf("stand-in %v names %q, want ask.test", a3, n)
	}
	if rcode, _ := parsed(t, p.answer([]byte{0, 9, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0})); rcode != dnsRcodeFormErr {
		t.Errorf("a response sent as a query: rcode %d, want FORMERR", rcode)
	}
	if got := p.answer([]byte{1}); got != nil {
		t.Errorf("one byte: answered %x", got)
	}
}

func FuzzParseDNSQuery(f *testing.F) {
	f.Add(query(1, "registry.npmjs.org", dnsTypeA))
	f.Add(query(2, "a.b", dnsTypeAAAA))
	f.Add([]byte{0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := ParseDNSQuery(b)
		if err != nil {
			return
		}
		if len(q.Name) > 253 || len(q.question) > len(b) {
			t.Fatalf("accepted %q", q.Name)
		}
		out := dnsReply(q, dnsRcodeOK, netip.MustParseAddr("198.18.0.1"))
		if binary.BigEndian.Uint16(out[0:2]) != q.ID || out[2]&0x80 == 0 {
			t.Fatalf("reply %x does not answer %x", out, b)
		}
	})
}

func TestParsePin(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"registry.test:443=127.0.0.1:8443", "registry.test:443=127.0.0.1:8443", ""},
		{"git.corp=10.1.2.3", "git.corp=10.1.2.3", ""},
		{"GIT.corp.=[::1]:8080", "git.corp=[::1]:8080", ""},
		{"h.test=::1", "h.test=::1", ""},
		{"h.test", "", "want HOST"},
		{"h.test:0=1.2.3.4", "", "bad port"},
		{"h.test=1.2.3.4:0", "", "bad port 0"},
		{"h.test=example.com", "", "not an IP address"},
		{"1.2.3.4=5.6.7.8", "", "an address, not a name"},
		{"*.x.test=1.2.3.4", "", "not a DNS name"},
	} {
		p, err := ParsePin(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParsePin(%q) = %v, %v; want error %q", c.in, p, err, c.err)
			}
			continue
		}
		if err != nil || p.String() != c.want {
			t.Errorf("ParsePin(%q) = %v, %v; want %s", c.in, p, err, c.want)
		}
	}
	pol := &Policy{Pins: []Pin{
		{Host: "a.test", To: netip.MustParseAddrPort("10.0.0.1:0")},
		{Host: "a.test", Port: 443, To: netip.MustParseAddrPort("10.0.0.2:8443")},
	}}
	for port, want := range map[uint16]string{80: "10.0.0.1:80", 443: "10.0.0.2:8443"} {
		if got, ok := pol.pinned("a.test", port); !ok || got.String() != want {
			t.Errorf("pinned(a.test, %d) = %v, %v; want %s", port, got, ok, want)
		}
	}
	if _, ok := pol.pinned("b.test", 80); ok {
		t.Error("b.test is pinned")
	}
}

func TestReadProxyRequest(t *testing.T) {
	for _, c := range []struct {
		in, target, head, err string
	}{
		{"CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n", "a.test:443", "", ""},
		{"GET http://a.test/x?y=1 HTTP/1.1\r\nHost: a.test\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: x\r\nAccept: */*\r\n\r\n",
			"a.test:80", "GET /x?y=1 HTTP/1.1\r\nHost: a.test\r\nAccept: */*\r\nConnection: close\r\n\r\n", ""},
		{"POST http://a.test:8080 HTTP/1.0\r\n\r\n", "a.test:8080", "POST / HTTP/1.0\r\nHost: a.test:8080\r\nConnection: close\r\n\r\n", ""},
		{"GET /relative HTTP/1.1\r\nHost: a.test\r\n\r\n", "", "", "absolute http:// URL"},
		{"GET https://a.test/ HTTP/1.1\r\n\r\n", "", "", "absolute http:// URL"},
		{"GET http://u:p@a.test/ HTTP/1.1\r\n\r\n", "", "", "absolute http:// URL"},
		{"GET http://a.test/ SPDY/3\r\n\r\n", "", "", "HTTP/1.x"},
		{"GET http://a.test/ HTTP/1.1\r\n" + strings.Repeat("X: y\r\n", 2000) + "\r\n", "", "", "longer than"},
	} {
		got, err := ReadProxyRequest(bufio.NewReader(strings.NewReader(c.in)))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ReadProxyRequest(%.40q) = %v; want error %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got.Target.String() != c.target || string(got.Head) != c.head {
			t.Errorf("ReadProxyRequest(%.40q) = %v %q, %v; want %s %q", c.in, got.Target, got.Head, err, c.target, c.head)
		}
	}
}

func FuzzReadProxyRequest(f *testing.F) {
	f.Add("GET http://a.test/x HTTP/1.1\r\nHost: a\r\n\r\n")
	f.Add("CONNECT a.test:443 HTTP/1.1\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadProxyRequest(bufio.NewReader(strings.NewReader(in)))
		if err != nil {
			return
		}
		if got.Target.Port == 0 || got.Target.Host == "" && !got.Target.Addr.IsValid() {
			t.Fatalf("accepted %q with target %v", in, got.Target)
		}
		if got.Head != nil && !strings.HasSuffix(string(got.Head), "Connection: close\r\n\r\n") {
			t.Fatalf("head %q", got.Head)
		}
	})
}

func TestClaimedName(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
		err  bool
	}{
		{clientHello(t, "sni.test"), "sni.test", false},
		{[]byte("GET / HTTP/1.1\r\nHost: host.test:8080\r\n\r\n"), "host.test", false},
		{[]byte("GET / HTTP/1.0\r\n\r\n"), "", false},
		{[]byte("SSH-2.0-OpenSSH\r\n"), "", false},
		{[]byte{22, 3, 1, 0, 10, 1}, "", true},
		{[]byte("GET / HTTP/1.1\r\nHost: h"), "", true},
		// Servers skip blank lines before the request line, and some take
		// a method in lower case: the Host they read is the one judged.
		{[]byte("\r\n\r\nGET / HTTP/1.1\r\nHost: blocked.test\r\n\r\n"), "blocked.test", false},
		{[]byte("\nGET / HTTP/1.1\r\nHost: blocked.test\r\n\r\n"), "blocked.test", false},
		{[]byte("get / HTTP/1.1\r\nHost: blocked.test\r\n\r\n"), "blocked.test", false},
		{[]byte("\r\n"), "", false},
	} {
		got, err := claimedName(bufio.NewReaderSize(strings.NewReader(string(c.in)), 4096))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("claimedName(%.30q) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

// upstream is a loopback server that answers each connection with what
// serve writes.
func upstream(t testing.TB, serve func(net.Conn)) netip.AddrPort {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).AddrPort()
}

// echoHead answers an HTTP request with its request line and Host.
func echoHead(c net.Conn) {
	br := bufio.NewReader(c)
	h, err := readRequestHead(br)
	if err != nil {
		return
	}
	host, _ := h.header("Host")
	body := h.line + " host=" + host
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}

// serveProxy starts p's endpoint and capture listeners on loopback. stop
// ends them and returns once every connection's handler has returned, so
// every connection has been recorded; the test's cleanup calls it too.
func serveProxy(t testing.TB, p *Proxy) (endpoint, capture string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	stop = sync.OnceFunc(func() { cancel(); p.Close(); wg.Wait() })
	t.Cleanup(stop)
	for _, serve := range []func(context.Context, net.Listener) error{p.ServeEndpoint, p.ServeCapture} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if endpoint == "" {
			endpoint = l.Addr().String()
		} else {
			capture = l.Addr().String()
		}
		wg.Add(1)
		go func() { defer wg.Done(); serve(ctx, l) }()
	}
	return endpoint, capture, stop
}

func TestEndpoint(t *testing.T) {
	up := upstream(t, echoHead)
	var mu sync.Mutex
	var recs []Record
	p := &Proxy{
		Policy: &Policy{
			Rules: []Rule{{Pattern: "a.test", Decision: Allow, Source: "allow_hosts"}, {Pattern: "ask.test", Decision: Prompt}},
			Pins:  []Pin{{Host: "a.test", To: up}, {Host: "ask.test", To: up}},
		},
		Ask:    func(_ context.Context, host string, port uint16) bool { return host == "ask.test" && port == 81 },
		Record: func(r Record) { mu.Lock(); recs = append(recs, r); mu.Unlock() },
	}
	endpoint, _, stop := serveProxy(t, p)
	roundTrip := func(send string, socks bool, target string) string {
		c, err := net.Dial("tcp", endpoint)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if socks {
			host, port, _ := net.SplitHostPort(target)
			var pn uint16
			fmt.Sscan(port, &pn)
			req := append([]byte{5, 1, 0, 5, 1, 0, 3, byte(len(host))}, host...)
			c.Write(binary.BigEndian.AppendUint16(req, pn))
			var hdr [12]byte
			if _, err := io.ReadFull(c, hdr[:12]); err != nil || hdr[3] != 0 {
				return fmt.Sprintf("socks reply %x", hdr[2:4])
			}
		}
		io.WriteString(c, send)
		b, _ := io.ReadAll(c)
		return string(b)
	}
	for _, c := range []struct {
		name, send string
		socks      bool
		target     string
		want       string
	}{
		{"CONNECT allowed", "CONNECT a.test:80 HTTP/1.1\r\n\r\nGET /t HTTP/1.1\r\nHost: a.test\r\n\r\n", false, "", "GET /t HTTP/1.1 host=a.test"},
		{"CONNECT unlisted", "CONNECT b.test:80 HTTP/1.1\r\n\r\n", false, "", "403 Forbidden"},
		{"absolute-form GET", "GET http://a.test/abs HTTP/1.1\r\nProxy-Connection: keep-alive\r\n\r\n", false, "", "GET /abs HTTP/1.1 host=a.test"},
		{"SOCKS5 allowed", "GET /s HTTP/1.0\r\nHost: a.test\r\n\r\n", true, "a.test:80", "GET /s HTTP/1.0 host=a.test"},
		{"SOCKS5 unlisted", "", true, "b.test:80", "socks reply 0502"},
		{"prompt approved", "CONNECT ask.test:81 HTTP/1.1\r\n\r\nGET /p HTTP/1.0\r\n\r\n", false, "", "GET /p HTTP/1.0"},
		{"prompt refused", "CONNECT ask.test:82 HTTP/1.1\r\n\r\n", false, "", "prompt refused by the approver"},
		{"address literal", "CONNECT 127.0.0.1:80 HTTP/1.1\r\n\r\n", false, "", "403 Forbidden"},
	} {
		if got := roundTrip(c.send, c.socks, c.target); !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	denied := map[string]bool{}
	for _, d := range p.Denials() {
		denied[fmt.Sprintf("%s:%d", d.Host, d.Port)] = true
	}
	for _, want := range []string{"b.test:80", "ask.test:82", "127.0.0.1:80"} {
		if !denied[want] {
			t.Errorf("denials %v, want %s", p.Denials(), want)
		}
	}
	// The proxy records a tunnel once both ends are done, which can be
	// after the client has read its answer.
	stop()
	mu.Lock()
	defer mu.Unlock()
	var carried int
	for _, r := range recs {
		if r.Host == "a.test" && r.Decision == "allow" && r.Rule == "allow_hosts" && r.BytesIn > 0 && r.BytesOut > 0 && r.Addr == up.String() {
			carried++
		}
	}
	if carried != 3 {
		t.Errorf("records %+v: want 3 carried connections to a.test with bytes both ways", recs)
	}
}

// TestRebinding: a name allowed by a suffix that resolves to a private,
// loopback or metadata address is refused; a rule that names the host
// itself may reach its private address.
func TestRebinding(t *testing.T) {
	answers := map[string][]netip.Addr{
		"evil.wild.test":     {netip.MustParseAddr("169.254.169.254")},
		"mixed.wild.test":    {netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("93.184.215.14")},
		"git.corp":           {netip.MustParseAddr("10.1.2.3")},
		"loopback.wild.test": {netip.MustParseAddr("::ffff:127.0.0.1")},
		// Through a NAT64 gateway, the gateway's private network.
		"nat64.wild.test":    {netip.MustParseAddr("64:ff9b::a00:5"), netip.MustParseAddr("64:ff9b::a9fe:a9fe")},
		"public64.wild.test": {netip.MustParseAddr("64:ff9b::5db8:d70e")},
	}
	var dialled []string
	p := &Proxy{
		Policy: &Policy{Rules: []Rule{{Pattern: "*.wild.test", Decision: Allow}, {Pattern: "git.corp", Decision: Allow, Private: true}}},
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) { return answers[host], nil },
		Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
			dialled = append(dialled, addr)
			return nil, errors.New("not dialled in this test")
		},
	}
	p.init()
	for _, c := range []struct {
		host    string
		refused bool
		dests   string
	}{
		{"evil.wild.test", true, ""},
		{"loopback.wild.test", true, ""},
		{"nat64.wild.test", true, ""},
		{"public64.wild.test", false, "[64:ff9b::5db8:d70e]:443"},
		{"mixed.wild.test", false, "93.184.215.14:443"},
		{"git.corp", false, "10.1.2.3:443"},
	} {
		r, err := p.decide(context.Background(), c.host, netip.Addr{}, 443, "dns")
		if refused := errors.Is(err, errRefused); refused != c.refused {
			t.Errorf("%s: err %v, want refused %v", c.host, err, c.refused)
			continue
		}
		if c.refused {
			if !strings.Contains(r.rec.Why, "refused addresses") {
				t.Errorf("%s: why %q", c.host, r.rec.Why)
			}
			continue
		}
		if len(r.dests) != 1 || r.dests[0].String() != c.dests {
			t.Errorf("%s: dests %v, want %s", c.host, r.dests, c.dests)
		}
	}
}

// TestSlowClient: a client that connects and never sends is let go after
// the handshake timeout, on both kinds of listener.
func TestSlowClient(t *testing.T) {
	p := &Proxy{Policy: &Policy{}, HandshakeTimeout: 100 * time.Millisecond}
	endpoint, capture, _ := serveProxy(t, p)
	for _, addr := range []string{endpoint, capture} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// A bound far above the timeout: the proxy must close first.
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err = c.Read(make([]byte, 1))
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s: a silent client was held past the handshake timeout", addr)
		}
		c.Close()
	}
}

// TestLargeTransfer: a gigabyte through one tunnel, and the proxy's
// memory stays flat: bytes are copied, never collected.
func TestLargeTransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("moves a gigabyte")
	}
	const size = 1 << 30
	up := upstream(t, func(c net.Conn) {
		buf := make([]byte, 256<<10)
		for sent := 0; sent < size; sent += len(buf) {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
	p := &Proxy{Policy: &Policy{Rules: []Rule{{Pattern: "big.test", Decision: Allow}}, Pins: []Pin{{Host: "big.test", To: up}}}}
	endpoint, _, _ := serveProxy(t, p)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := net.Dial("tcp", endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT big.test:80 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if line, _ := br.ReadString('\n'); !strings.Contains(line, "200") {
		t.Fatalf("CONNECT: %q", line)
	}
	br.ReadString('\n')
	n, err := io.Copy(io.Discard, br)
	if err != nil || n != size {
		t.Fatalf("received %d bytes, %v; want %d", n, err, size)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 16<<20 {
		t.Errorf("the heap grew by %d MiB carrying 1 GiB", grew>>20)
	}
}
