package egress

import (
	"bufio"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// benchTargets starts a loopback server that answers each byte with one
// (for set-up) or streams (for throughput), and a proxy allowing it as
// bench.test; it returns the server's address and the proxy endpoint's.
func benchTargets(b *testing.B, serve func(net.Conn)) (direct netip.AddrPort, endpoint string) {
	b.Helper()
	direct = upstream(b, serve)
	p := &Proxy{Policy: &Policy{Rules: []Rule{{Pattern: "bench.test", Decision: Allow}}, Pins: []Pin{{Host: "bench.test", To: direct}}}}
	endpoint, _, _ = serveProxy(b, p)
	return direct, endpoint
}

// dialVia opens a tunnel to bench.test through endpoint, or a direct
// connection when endpoint is empty.
func dialVia(b *testing.B, direct netip.AddrPort, endpoint string) (net.Conn, *bufio.Reader) {
	if endpoint == "" {
		c, err := net.Dial("tcp", direct.String())
		if err != nil {
			b.Fatal(err)
		}
		return c, bufio.NewReader(c)
	}
	c, err := net.Dial("tcp", endpoint)
	if err != nil {
		b.Fatal(err)
	}
	io.WriteString(c, "CONNECT bench.test:80 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if strings.TrimSpace(l) == "" {
			return c, br
		}
	}
}

// BenchmarkConnect is the set-up of one connection and one byte each way:
// through the proxy (judged, resolved by pin, dialled, spliced) beside a
// direct loopback connection.
func BenchmarkConnect(b *testing.B) {
	direct, endpoint := benchTargets(b, func(c net.Conn) {
		var one [1]byte
		if _, err := io.ReadFull(c, one[:]); err == nil {
			c.Write(one[:])
		}
	})
	for _, via := range []struct{ name, endpoint string }{{"direct", ""}, {"proxy", endpoint}} {
		b.Run(via.name, func(b *testing.B) {
			for b.Loop() {
				c, br := dialVia(b, direct, via.endpoint)
				c.Write([]byte{1})
				if _, err := br.ReadByte(); err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}

// BenchmarkThroughput streams from the server through the proxy beside a
// direct connection (b.SetBytes: MB/s).
func BenchmarkThroughput(b *testing.B) {
	const chunk = 1 << 20
	direct, endpoint := benchTargets(b, func(c net.Conn) {
		buf := make([]byte, 64<<10)
		for {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
	for _, via := range []struct{ name, endpoint string }{{"direct", ""}, {"proxy", endpoint}} {
		b.Run(via.name, func(b *testing.B) {
			c, br := dialVia(b, direct, via.endpoint)
			defer c.Close()
			b.SetBytes(chunk)
			for b.Loop() {
				if _, err := io.CopyN(io.Discard, br, chunk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
