package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	p := &Policy{Rules: []Rule{
		{Pattern: "registry.npmjs.org", Decision: Allow},
		{Pattern: "*.githubusercontent.com", Decision: Allow},
		{Pattern: "evil.githubusercontent.com", Decision: Deny},
		{Pattern: "ask.example.com", Decision: Prompt},
		{Pattern: "ask.example.com", Decision: Allow},
	}}
	for host, want := range map[string]Decision{
		"registry.npmjs.org": Allow, "REGISTRY.npmjs.org.": Allow, "x.registry.npmjs.org": Deny,
		"raw.githubusercontent.com": Allow, "githubusercontent.com": Deny, "evil.githubusercontent.com": Deny,
		"ask.example.com": Prompt, "other.org": Deny, "127.0.0.1": Deny, "": Deny, "a..b": Deny, "a b": Deny,
		"xgithubusercontent.com": Deny,
	} {
		if got, _ := p.Judge(host); got != want {
			t.Errorf("Judge(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestParsePattern(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM": "example.com", "*.github.com": "*.github.com", "a.b.": "a.b",
		"*.com": "", "*": "", "a*b.com": "", "http://x.com": "", "x.com/path": "", "1.2.3.4": "", "user@x.com": "",
		"x.com:443": "", "": "", "*.*.x.com": "",
	} {
		got, err := ParsePattern(in)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("ParsePattern(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, p := range presets {
		for _, h := range p.hosts {
			if _, err := ParsePattern(h); err != nil {
				t.Errorf("preset %s: %v", p.name, err)
			}
		}
	}
}

func TestPresets(t *testing.T) {
	names := PresetNames()
	if len(names) != len(presets) || !slices.IsSorted(names) {
		t.Errorf("PresetNames() = %q, want the %d preset names sorted", names, len(presets))
	}
	seen := map[string]bool{}
	for _, p := range presets {
		if seen[p.name] {
			t.Errorf("preset %s is listed twice", p.name)
		}
		seen[p.name] = true
		if hosts, ok := Preset(p.name); !ok || !slices.Equal(hosts, p.hosts) {
			t.Errorf("Preset(%q) = %q, %v, want %q", p.name, hosts, ok, p.hosts)
		}
	}
	for _, name := range []string{":nope", "npm", ""} {
		if hosts, ok := Preset(name); ok {
			t.Errorf("Preset(%q) = %q, want none", name, hosts)
		}
	}
}

// TestStandIns checks the range StandIns is put together as.
func TestStandIns(t *testing.T) {
	if want := netip.MustParsePrefix("198.18.0.0/15"); StandIns != want {
		t.Errorf("StandIns = %v, want %v", StandIns, want)
	}
}

func TestRefused(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.20.0.1": true, "192.168.1.1": true, "169.254.169.254": true,
		"100.100.100.200": true, "0.0.0.0": true, "::1": true, "fd00:ec2::254": true, "fe80::1": true,
		"::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true, "224.0.0.1": true,
		"93.184.216.34": false, "2606:4700::1111": false, "8.8.8.8": false,
		// NAT64 (RFC 6052) is judged by the IPv4 address it embeds.
		"64:ff9b::7f00:1": true, "64:ff9b::a9fe:a9fe": true, "64:ff9b::10.0.0.5": true, "64:ff9b::5db8:d822": false,
		"64:ff9b:1::a00:5": true, "::10.0.0.5": true, "::7f00:1": true, "fec0::1": true,
	} {
		if _, got := Refused(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Refused(%s) = %v, want %v", addr, got, want)
		}
	}
	if _, got := Refused(netip.Addr{}); !got {
		t.Error("the zero address is not refused")
	}
}

// clientHello returns what crypto/tls sends first for serverName.
func clientHello(t testing.TB, serverName string) []byte {
	c, s := net.Pipe()
	defer c.Close()
	go tls.Client(c, &tls.Config{ServerName: serverName, InsecureSkipVerify: true}).Handshake()
	var buf bytes.Buffer
	s.SetReadDeadline(time.Now().Add(2 * time.Second))
	b := make([]byte, 4096)
	for {
		n, err := s.Read(b)
		buf.Write(b[:n])
		if _, need, _ := ServerName(buf.Bytes()); need == 0 || err != nil {
			break
		}
	}
	s.Close()
	return buf.Bytes()
}

func TestServerName(t *testing.T) {
	hello := clientHello(t, "Registry.NPMJS.org")
	if name, need, err := ServerName(hello); name != "registry.npmjs.org" || need != 0 || err != nil {
		t.Errorf("ServerName = %q, %d, %v", name, need, err)
	}
	// Part of it asks for the rest; never a name from a prefix.
	if name, need, err := ServerName(hello[:3]); name != "" || need != 2 || err != nil {
		t.Errorf("3 bytes: %q, %d, %v", name, need, err)
	}
	if name, need, err := ServerName(hello[:20]); name != "" || need == 0 || err != nil {
		t.Errorf("20 bytes: %q, %d, %v", name, need, err)
	}
	for _, bad := range [][]byte{[]byte("GET / HTTP/1.1\r\n\r\n"), clientHello(t, ""), {22, 3, 1, 0, 1, 2}} {
		if name, need, err := ServerName(bad); err == nil && need == 0 {
			t.Errorf("ServerName(%q) = %q, want an error", bad, name)
		}
	}
}

func FuzzServerName(f *testing.F) {
	f.Add(clientHello(f, "example.com"))
	f.Add([]byte{22, 3, 1, 0, 4, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		name, need, err := ServerName(b)
		if err == nil && need == 0 {
			if _, nerr := NormalizeHost(name); nerr != nil {
				t.Errorf("ServerName gave %q, not a normal name", name)
			}
		}
		if need < 0 || need > MaxHello+5 {
			t.Errorf("need %d", need)
		}
	})
}

func TestReadConnect(t *testing.T) {
	for in, want := range map[string]string{
		"CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\n\r\nHELLO": "registry.npmjs.org:443",
		"CONNECT [2606:4700::1111]:443 HTTP/1.1\r\n\r\n":                                       "[2606:4700::1111]:443",
		"CONNECT 93.184.216.34:80 HTTP/1.0\r\n\r\n":                                            "93.184.216.34:80",
		"GET http://x.com/ HTTP/1.1\r\n\r\n":                                                   "",
		"CONNECT x.com HTTP/1.1\r\n\r\n":                                                       "",
		"CONNECT x.com:0 HTTP/1.1\r\n\r\n":                                                     "",
		"CONNECT x.com:443 HTTP/1.1\r\n":                                                       "",
		"CONNECT a..b:443 HTTP/1.1\r\n\r\n":                                                    "",
		"CONNECT x.com:443 HTTP/1.1\r\n" + strings.Repeat("X-A: b\r\n", 2000) + "\r\n":         "",
	} {
		r := bufio.NewReader(strings.NewReader(in))
		got, err := ReadConnect(r)
		if (err == nil) != (want != "") || err == nil && got.String() != want {
			t.Errorf("ReadConnect(%.40q) = %v, %v; want %q", in, got, err, want)
		}
		if err == nil && strings.HasSuffix(in, "HELLO") {
			if rest, _ := r.ReadString(0); rest != "HELLO" {
				t.Errorf("the tunnel's first bytes were eaten: %q left", rest)
			}
		}
	}
}

func FuzzReadConnect(f *testing.F) {
	f.Add("CONNECT a.b:443 HTTP/1.1\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadConnect(bufio.NewReader(strings.NewReader(in)))
		if err == nil && got.Host == "" && !got.Addr.IsValid() {
			t.Errorf("%q: a target with neither name nor address", in)
		}
	})
}

func TestReadSocks5(t *testing.T) {
	greet := []byte{5, 1, 0}
	for _, tt := range []struct {
		name string
		req  []byte
		want string
	}{
		{"name", append([]byte{5, 1, 0, 3, 10}, append([]byte("pypi.org.."), 1, 187)...), ""},
		{"name ok", append([]byte{5, 1, 0, 3, 8}, append([]byte("pypi.org"), 1, 187)...), "pypi.org:443"},
		{"ipv4", []byte{5, 1, 0, 1, 1, 2, 3, 4, 0, 80}, "1.2.3.4:80"},
		{"ipv6", append(append([]byte{5, 1, 0, 4}, netip.MustParseAddr("2606:4700::1111").AsSlice()...), 1, 187), "[2606:4700::1111]:443"},
		{"udp associate", []byte{5, 3, 0, 1, 0, 0, 0, 0, 0, 0}, ""},
		{"bind", []byte{5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, ""},
		{"bad type", []byte{5, 1, 0, 9, 0, 0}, ""},
		{"short", []byte{5, 1}, ""},
	} {
		var out bytes.Buffer
		got, err := ReadSocks5(bytes.NewReader(append(slicesClone(greet), tt.req...)), &out)
		if (err == nil) != (tt.want != "") || err == nil && got.String() != tt.want {
			t.Errorf("%s: ReadSocks5 = %v, %v; want %q", tt.name, got, err, tt.want)
		}
		if !bytes.HasPrefix(out.Bytes(), []byte{5, 0}) {
			t.Errorf("%s: greeting answered %v", tt.name, out.Bytes())
		}
	}
	var out bytes.Buffer
	if _, err := ReadSocks5(bytes.NewReader([]byte{5, 1, 2}), &out); err == nil || !bytes.Equal(out.Bytes(), []byte{5, 0xff}) {
		t.Errorf("a client offering only password auth: %v, answered %v", err, out.Bytes())
	}
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

func FuzzReadSocks5(f *testing.F) {
	f.Add([]byte{5, 1, 0, 5, 1, 0, 1, 1, 2, 3, 4, 0, 80})
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := ReadSocks5(bytes.NewReader(in), &bytes.Buffer{})
		if err == nil && got.Host == "" && !got.Addr.IsValid() {
			t.Errorf("%v: a target with neither name nor address", in)
		}
	})
}
