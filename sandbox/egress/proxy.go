package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Default bounds of one connection's set-up.
const (
	// DefaultHandshakeTimeout bounds the wait for what names a
	// connection (its first bytes, a proxy request): a client that never
	// sends holds nothing for longer.
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultDialTimeout bounds the dial of each address of a host.
	DefaultDialTimeout = 10 * time.Second
)

// Proxy decides and carries the connections of one run whose network mode
// is "proxy" (DESIGN §9). The backend hands it the sockets it made inside
// the command's network namespace (the DNS stub's and the listeners every
// TCP connection lands on, ServeCapture, plus the HTTP CONNECT / SOCKS5
// endpoint, ServeEndpoint); the Proxy runs outside, in gatedexec's own
// process, and dials the hosts the policy allows from there. When that
// process ends, the sockets close and the command has no network left.
//
// A Proxy is used for one run; its methods are safe for concurrent use.
type Proxy struct {
	// Policy judges host names and addresses.
	Policy *Policy
	// Lookup resolves a host name to the addresses to dial; nil is the
	// host's resolver.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an address ("tcp", "1.2.3.4:443"); nil is a
	// net.Dialer with DialTimeout.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Ask settles a prompt decision for host and port (the connection
	// waits for it); nil denies every prompt.
	Ask func(ctx context.Context, host string, port uint16) bool
	// Record receives every connection when it ends, and every refused
	// lookup; nil discards them.
	Record func(Record)
	// HandshakeTimeout and DialTimeout replace the defaults when positive.
	HandshakeTimeout, DialTimeout time.Duration

	once    sync.Once
	names   *standIns
	mu      sync.Mutex
	denied  []Denial
	asked   map[string]bool
	conns   map[net.Conn]struct{}
	closing bool
}

// Record is one connection or lookup as the audit log keeps it.
type Record struct {
	// Host is the name judged, or the address when the client gave one.
	Host string `json:"host"`
	Port uint16 `json:"port"`
	// Via says how the name was learnt: "dns" (a stand-in address of
	// the stub), "sni", "http" (a Host header), "connect", "socks5",
	// "lookup" (a refused DNS query), or "address".
	Via      string `json:"via"`
	Decision string `json:"decision"`
	// Rule is where the deciding rule comes from; empty when none matched.
	Rule string `json:"rule,omitempty"`
	// Addr is the address dialled, when one was.
	Addr string `json:"addr,omitempty"`
	// Why says why a connection was refused or failed.
	Why      string `json:"why,omitempty"`
	BytesOut int64  `json:"bytes_out"`
	BytesIn  int64  `json:"bytes_in"`
	// Start is when the connection was accepted (the record's time).
	Start time.Time `json:"-"`
	// DurationMS is how long it lasted.
	DurationMS int64 `json:"duration_ms"`
}

// Denial is a host the policy refused to a run: what an escalation offers.
type Denial struct {
	Host string
	// Port is 0 for a refused lookup, which names no port.
	Port uint16
	Why  string
}

// WhyNoRule is the reason of a denial of a host no rule names: the one
// kind an escalation may offer (a host a rule denies stays denied, and
// one refused for where it resolves would be refused again).
const WhyNoRule = "no rule allows this host"

// maxDenials bounds the refusals one run keeps.
const maxDenials = 64

func (p *Proxy) init() {
	p.once.Do(func() {
		p.names = newStandIns()
		p.asked = map[string]bool{}
		p.conns = map[net.Conn]struct{}{}
	})
}

// Denials returns the refused hosts so far, each host and port once.
func (p *Proxy) Denials() []Denial {
	p.init()
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Denial(nil), p.denied...)
}

// Close closes every connection in progress; the Serve methods return once
// their context ends.
func (p *Proxy) Close() {
	p.init()
	p.mu.Lock()
	p.closing = true
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

// track keeps c until untrack, so that Close ends it; false when closing.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

func (p *Proxy) deny(host string, port uint16, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.denied {
		if d.Host == host && d.Port == port {
			return
		}
	}
	if len(p.denied) < maxDenials {
		p.denied = append(p.denied, Denial{Host: host, Port: port, Why: why})
	}
}

func (p *Proxy) record(r Record) {
	if p.Record != nil {
		p.Record(r)
	}
}

func (p *Proxy) handshakeTimeout() time.Duration {
	if p.HandshakeTimeout > 0 {
		return p.HandshakeTimeout
	}
	return DefaultHandshakeTimeout
}

// errRefused marks a connection the policy refused (as opposed to one that
// failed to connect).
var errRefused = errors.New("refused by the network policy")

// route is a judged connection: where it goes, and what the record says.
type route struct {
	rec   Record
	dests []netip.AddrPort
}

// decide judges a connection to host (or, when host is empty, to addr) on
// port and finds where it goes. A refusal is recorded as a denial.
func (p *Proxy) decide(ctx context.Context, host string, addr netip.Addr, port uint16, via string) (*route, error) {
	r := &route{rec: Record{Host: host, Port: port, Via: via, Start: time.Now()}}
	var d Decision
	var rule *Rule
	if host == "" {
		r.rec.Host = addr.Unmap().String()
		d, rule = p.Policy.JudgeAddr(addr)
	} else {
		d, rule = p.Policy.Judge(host)
	}
	if rule != nil {
		r.rec.Rule = rule.Source
	}
	refuse := func(why string) (*route, error) {
		r.rec.Decision, r.rec.Why = Deny.String(), why
		p.deny(r.rec.Host, port, why)
		return r, fmt.Errorf("%s: %s: %w", net.JoinHostPort(r.rec.Host, strconv.Itoa(int(port))), why, errRefused)
	}
	switch d {
	case Deny:
		if rule == nil {
			return refuse(WhyNoRule)
		}
		return refuse("denied by " + rule.Source)
	case Prompt:
		if !p.ask(ctx, r.rec.Host, port) {
			return refuse("prompt refused by the approver")
		}
	}
	r.rec.Decision = d.String()
	if host == "" {
		// A rule names this address: it is dialled whatever range it is in.
		r.dests = []netip.AddrPort{netip.AddrPortFrom(addr.Unmap(), port)}
		return r, nil
	}
	if to, ok := p.Policy.pinned(host, port); ok {
		r.dests = []netip.AddrPort{to}
		return r, nil
	}
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		r.rec.Why = "lookup failed: " + err.Error()
		return r, fmt.Errorf("%s: %w", host, err)
	}
	var refused []string
	for _, a := range addrs {
		if why, bad := Refused(a); bad && !rule.Private {
			refused = append(refused, a.String()+" ("+why+")")
			continue
		}
		r.dests = append(r.dests, netip.AddrPortFrom(a.Unmap(), port))
	}
	if len(r.dests) == 0 {
		if len(refused) > 0 {
			return refuse("resolves only to refused addresses: " + refused[0])
		}
		r.rec.Why = "no address"
		return r, fmt.Errorf("%s: no address", host)
	}
	return r, nil
}

// ask settles a prompt once per host and port for the run.
func (p *Proxy) ask(ctx context.Context, host string, port uint16) bool {
	key := net.JoinHostPort(host, strconv.Itoa(int(port)))
	p.mu.Lock()
	ok, seen := p.asked[key]
	p.mu.Unlock()
	if seen {
		return ok
	}
	ok = p.Ask != nil && p.Ask(ctx, host, port)
	p.mu.Lock()
	p.asked[key] = ok
	p.mu.Unlock()
	return ok
}

func (p *Proxy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if p.Lookup != nil {
		return p.Lookup(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// dial connects to the first of r's destinations that answers.
func (p *Proxy) dial(ctx context.Context, r *route) (net.Conn, error) {
	timeout := p.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	var firstErr error
	for _, d := range r.dests {
		dctx, cancel := context.WithTimeout(ctx, timeout)
		var c net.Conn
		var err error
		if p.Dial != nil {
			c, err = p.Dial(dctx, "tcp", d.String())
		} else {
			var nd net.Dialer
			c, err = nd.DialContext(dctx, "tcp", d.String())
		}
		cancel()
		if err == nil {
			r.rec.Addr = d.String()
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	r.rec.Why = "connect failed: " + firstErr.Error()
	return nil, firstErr
}
