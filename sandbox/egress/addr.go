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
	for _, r := range refusedRanges() {
		if r.prefix.Contains(ip) {
			return r.why, true
		}
	}
	return "", false
}
