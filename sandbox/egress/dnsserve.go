package egress

import (
	"context"
	"net"
	"net/netip"
	"time"
)

// ServeDNS answers the queries that reach conn, the stub's socket in the
// command's namespace (which routes every address to itself, so whatever
// server /etc/resolv.conf names is the stub). A name the policy allows or
// leaves to a prompt gets its stand-in address (A; AAAA and other types
// get no record, so clients take the A); a refused name gets NXDOMAIN
// and is a denial. Nothing is resolved here: the real lookup happens when
// a connection is made, outside, by the Proxy. ServeDNS returns when ctx
// ends or conn fails.
func (p *Proxy) ServeDNS(ctx context.Context, conn *net.UDPConn) error {
	p.init()
	if err := enableDstInfo(conn); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	buf := make([]byte, maxDNSMessage+1)
	oob := make([]byte, 128)
	for {
		n, oobn, _, from, err := conn.ReadMsgUDPAddrPort(buf, oob)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return err
		}
		answer := p.answer(buf[:n])
		if answer == nil {
			continue
		}
		// Answer from the address the query was sent to, or the client's
		// resolver drops the answer as from a stranger.
		conn.WriteMsgUDPAddrPort(answer, replyInfo(oob[:oobn]), from)
	}
}

// answer is the stub's reply to one query; nil for none.
func (p *Proxy) answer(b []byte) []byte {
	q, err := ParseDNSQuery(b)
	if err != nil {
		return dnsError(b)
	}
	if q.Class != dnsClassIN {
		return dnsReply(q, dnsRcodeNotImp, netip.Addr{})
	}
	name, err := NormalizeHost(q.Name)
	if err != nil {
		// An address, a malformed name: no stand-in for it.
		return dnsReply(q, dnsRcodeNXDomain, netip.Addr{})
	}
	d, rule := p.Policy.Judge(name)
	if d == Deny {
		if q.Type == dnsTypeA || q.Type == dnsTypeAAAA {
			why := WhyNoRule
			r := Record{Host: name, Via: "lookup", Decision: Deny.String(), Start: time.Now()}
			if rule != nil {
				why, r.Rule = "denied by "+rule.Source, rule.Source
			}
			r.Why = why
			p.deny(name, 0, why)
			p.record(r)
		}
		return dnsReply(q, dnsRcodeNXDomain, netip.Addr{})
	}
	if q.Type != dnsTypeA {
		return dnsReply(q, dnsRcodeOK, netip.Addr{})
	}
	a, ok := p.names.addr(name)
	if !ok {
		return dnsReply(q, 2 /* SERVFAIL */, netip.Addr{})
	}
	return dnsReply(q, dnsRcodeOK, a)
}
