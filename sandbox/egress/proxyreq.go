package egress

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
)

// MaxRequestHead bounds an HTTP CONNECT request's line and headers.
const MaxRequestHead = 8 << 10

// Target is where a client asked to connect: a host name or an address,
// and a port.
type Target struct {
	// Host is a normalized name; empty when the client gave an address.
	Host string
	// Addr is the address the client gave, when it gave one.
	Addr netip.Addr
	Port uint16
}

func (t Target) String() string {
	h := t.Host
	if h == "" {
		h = t.Addr.String()
	}
	return net.JoinHostPort(h, strconv.Itoa(int(t.Port)))
}

// ReadConnect reads an HTTP CONNECT request ("CONNECT host:port
// HTTP/1.1", headers, a blank line) from r, within MaxRequestHead bytes
// (a line longer than r's buffer is refused too). Any other method is an
// error (ReadProxyRequest takes those too). What the client sends after
// the blank line stays in r for the tunnel.
func ReadConnect(r *bufio.Reader) (Target, error) {
	h, err := readRequestHead(r)
	if err != nil {
		return Target{}, fmt.Errorf("CONNECT request: %w", err)
	}
	if h.method != "CONNECT" {
		return Target{}, fmt.Errorf("CONNECT request: want CONNECT host:port HTTP/1.x, got %q", h.line)
	}
	return h.connectTarget()
}

func parseHostPort(s string) (Target, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return Target{}, err
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return Target{}, fmt.Errorf("port %q", port)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return Target{Addr: a, Port: uint16(p)}, nil
	}
	name, err := NormalizeHost(host)
	if err != nil {
		return Target{}, err
	}
	return Target{Host: name, Port: uint16(p)}, nil
}

// SOCKS5 reply codes the proxy sends.
const (
	SocksSucceeded   = 0
	SocksNotAllowed  = 2
	SocksUnreachable = 4
	SocksCmdNotSupp  = 7
)

// ReadSocks5 reads a SOCKS5 greeting (offering no authentication), answers
// it on w, and reads a CONNECT request. UDP ASSOCIATE and BIND are
// refused (reply "command not supported" written here): only TCP
// connections leave the sandbox.
func ReadSocks5(r io.Reader, w io.Writer) (Target, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil || hdr[0] != 5 {
		return Target{}, errors.New("SOCKS5: bad greeting")
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return Target{}, errors.New("SOCKS5: bad greeting")
	}
	noAuth := false
	for _, m := range methods {
		noAuth = noAuth || m == 0
	}
	if !noAuth {
		w.Write([]byte{5, 0xff})
		return Target{}, errors.New("SOCKS5: the client offers no method without authentication")
	}
	if _, err := w.Write([]byte{5, 0}); err != nil {
		return Target{}, err
	}
	var req [4]byte
	if _, err := io.ReadFull(r, req[:]); err != nil || req[0] != 5 {
		return Target{}, errors.New("SOCKS5: bad request")
	}
	var t Target
	switch req[3] {
	case 1, 4: // IPv4, IPv6
		b := make([]byte, 4+12*int(req[3]/4))
		if _, err := io.ReadFull(r, b); err != nil {
			return Target{}, errors.New("SOCKS5: bad address")
		}
		t.Addr, _ = netip.AddrFromSlice(b)
	case 3: // a name
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return Target{}, errors.New("SOCKS5: bad name")
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(r, b); err != nil {
			return Target{}, errors.New("SOCKS5: bad name")
		}
		name, err := NormalizeHost(string(b))
		if err != nil {
			if a, aerr := netip.ParseAddr(string(b)); aerr == nil {
				t.Addr = a
				break
			}
			return Target{}, fmt.Errorf("SOCKS5: %w", err)
		}
		t.Host = name
	default:
		return Target{}, errors.New("SOCKS5: unknown address type")
	}
	var port [2]byte
	if _, err := io.ReadFull(r, port[:]); err != nil {
		return Target{}, errors.New("SOCKS5: bad port")
	}
	t.Port = binary.BigEndian.Uint16(port[:])
	if req[1] != 1 {
		SocksReply(w, SocksCmdNotSupp)
		return Target{}, fmt.Errorf("SOCKS5: command %d refused: only CONNECT", req[1])
	}
	return t, nil
}

// SocksReply writes a SOCKS5 reply with code and a zero bound address.
func SocksReply(w io.Writer, code byte) error {
	_, err := w.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err
}
