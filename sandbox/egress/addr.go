package egress

import (
	"net/netip"
	"sync"
)

// refusedRange is one range of refusedRanges.
type refusedRange struct {
	prefix netip.Prefix
	why    string
}

// refusedRanges are the destinations a name's answer must not lead to
// unless a rule names the address itself: a public name resolving to one
// (DNS rebinding) would reach the host, its network or the cloud's
// metadata service from inside the sandbox. They are parsed on first use:
// the parse at package initialisation was paid by every gatedexec start.
var refusedRanges = sync.OnceValue(func() []refusedRange {
	return []refusedRange{
		{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
		{netip.MustParsePrefix("10.0.0.0/8"), "private"},
		{netip.MustParsePrefix("100.64.0.0/10"), "shared address space"},
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private"},
		{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
		{netip.MustParsePrefix("192.168.0.0/16"), "private"},
		{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
		{netip.MustParsePrefix("224.0.0.0/3"), "multicast or reserved"},
		{netip.MustParsePrefix("::/128"), "unspecified"},
		// IPv4-compatible addresses (deprecated): a host with a sit
		// tunnel sends them to the IPv4 address they embed.
		{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
		// The local-use NAT64 prefix: where its IPv4 address sits
		// depends on the prefix length the network chose.
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
		{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
		{netip.MustParsePrefix("::1/128"), "loopback"},
		{netip.MustParsePrefix("fc00::/7"), "unique local (private; fd00:ec2::254 is cloud metadata)"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
	}
})

// Refused reports whether a connection to ip is refused whatever host rule
// allowed its name, and why. An IPv4 address mapped into IPv6 is judged
// as the IPv4 address it is.
func Refused(ip netip.Addr) (why string, refused bool) {
	if !ip.IsValid() {
		return "invalid address", true
	}
	ip = ip.Unmap()
	if v4, ok := nat64(ip); ok {
		// A NAT64 gateway carries the connection to the IPv4 address
		// the name's AAAA answer embeds: it is judged as that address,
		// or a rebinding name reaches the gateway's private network.
		if why, bad := Refused(v4); bad {
			return "NAT64 of " + v4.String() + " (" + why + ")", true
		}
		return "", false
	}
	for _, r := range refusedRanges() {
		if r.prefix.Contains(ip) {
			return r.why, true
		}
	}
	return "", false
}

// nat64WellKnown is the NAT64 well-known prefix, 64:ff9b::/96 (RFC 6052),
// put together rather than parsed at package initialisation.
var nat64WellKnown = netip.PrefixFrom(netip.AddrFrom16([16]byte{0: 0x00, 1: 0x64, 2: 0xff, 3: 0x9b}), 96)

// nat64 returns the IPv4 address an address of the NAT64 well-known prefix
// embeds in its last 32 bits.
func nat64(ip netip.Addr) (netip.Addr, bool) {
	if !nat64WellKnown.Contains(ip) {
		return netip.Addr{}, false
	}
	b := ip.As16()
	return netip.AddrFrom4([4]byte(b[12:16])), true
}
