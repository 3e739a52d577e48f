package egress

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Pin sends the connections to one host, on one port or all, to a fixed
// address: a registry mirror, a host of the intranet, a test server. A pin
// grants nothing by itself (the host must still be allowed); the address
// it names is dialled even when private or loopback, since it is named.
type Pin struct {
	Host string
	// Port is the port the pin applies to; 0 is every port.
	Port uint16
	// To is where the connection goes; a zero port keeps the client's.
	To netip.AddrPort
}

func (p Pin) String() string {
	from := p.Host
	if p.Port != 0 {
		from = net.JoinHostPort(p.Host, strconv.Itoa(int(p.Port)))
	}
	to := p.To.Addr().String()
	if p.To.Port() != 0 {
		to = p.To.String()
	}
	return from + "=" + to
}

// ParsePin reads "HOST[:PORT]=ADDR[:PORT]" ("registry.test:443=127.0.0.1:8443",
// "git.corp=10.1.2.3"; an IPv6 address with a port in brackets).
func ParsePin(s string) (Pin, error) {
	from, to, ok := strings.Cut(s, "=")
	if !ok {
		return Pin{}, fmt.Errorf("connect_to %q: want HOST[:PORT]=ADDRESS[:PORT]", s)
	}
	var p Pin
	host := from
	if h, port, err := net.SplitHostPort(from); err == nil {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return Pin{}, fmt.Errorf("connect_to %q: bad port %q", s, port)
		}
		host, p.Port = h, uint16(n)
	}
	name, err := NormalizeHost(host)
	if err != nil {
		return Pin{}, fmt.Errorf("connect_to %q: %w", s, err)
	}
	p.Host = name
	if ap, err := netip.ParseAddrPort(to); err == nil {
		if ap.Port() == 0 {
			return Pin{}, fmt.Errorf("connect_to %q: bad port 0", s)
		}
		p.To = ap
	} else if a, err := netip.ParseAddr(to); err == nil && a.Zone() == "" {
		p.To = netip.AddrPortFrom(a, 0)
	} else {
		return Pin{}, fmt.Errorf("connect_to %q: %q is not an IP address (with an optional port)", s, to)
	}
	return p, nil
}

// pinned returns where a connection to host:port goes when a pin names it;
// a pin for the port wins over one for every port.
func (p *Policy) pinned(host string, port uint16) (netip.AddrPort, bool) {
	var best *Pin
	for i := range p.Pins {
		pin := &p.Pins[i]
		if pin.Host == host && (pin.Port == port || pin.Port == 0 && best == nil) {
			best = pin
		}
	}
	if best == nil {
		return netip.AddrPort{}, false
	}
	if best.To.Port() == 0 {
		return netip.AddrPortFrom(best.To.Addr(), port), true
	}
	return best.To, true
}
