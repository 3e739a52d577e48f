package egress

import (
	"net/netip"
	"sync"
)

// StandIns is the range from which the DNS stub answers: each address in it
// stands for one name for the length of a run. 198.18.0.0/15 is reserved
// for benchmarking, routed nowhere, and refused as a real destination
// (Refused), so a stand-in never collides with a host the command means.
// It is put together rather than parsed, which every gatedexec start
// would pay for at package initialisation.
var StandIns = netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 18, 0, 0}), 15)

// maxStandIns bounds the names one run may look up (the range holds about
// 131 000 addresses; a command that asks for more is flooding the stub).
const maxStandIns = 1 << 16

// standIns is the map between names and their stand-in addresses of one
// run. It is safe for concurrent use.
type standIns struct {
	mu     sync.Mutex
	byName map[string]netip.Addr
	byAddr map[netip.Addr]string
	next   netip.Addr
}

func newStandIns() *standIns {
	return &standIns{
		byName: map[string]netip.Addr{},
		byAddr: map[netip.Addr]string{},
		// .0 is left out: some clients treat a network address as invalid.
		next: StandIns.Addr().Next(),
	}
}

// addr returns name's stand-in, giving it one on first use; false when the
// range for this run is used up.
func (s *standIns) addr(name string) (netip.Addr, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.byName[name]; ok {
		return a, true
	}
	if len(s.byName) >= maxStandIns || !StandIns.Contains(s.next) {
		return netip.Addr{}, false
	}
	a := s.next
	s.next = a.Next()
	s.byName[name], s.byAddr[a] = a, name
	return a, true
}

// name returns the name a stand-in address stands for.
func (s *standIns) name(a netip.Addr) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.byAddr[a.Unmap()]
	return n, ok
}
