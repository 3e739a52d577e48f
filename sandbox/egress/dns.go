package egress

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"
)

// DNS record types and response codes the stub uses.
const (
	dnsTypeA    = 1
	dnsTypeAAAA = 28
	dnsClassIN  = 1

	dnsRcodeOK       = 0
	dnsRcodeFormErr  = 1
	dnsRcodeNXDomain = 3
	dnsRcodeNotImp   = 4
)

// maxDNSMessage bounds a query the stub reads; a stub query is one
// question, far below it.
const maxDNSMessage = 512

// dnsTTL is the lifetime the stub gives its answers: short, so that a
// name judged again after an escalation is asked again.
const dnsTTL = 5

// DNSQuery is the one question of a DNS query.
type DNSQuery struct {
	ID    uint16
	Name  string // as asked, without the trailing dot, not normalized
	Type  uint16
	Class uint16
	// question is the raw question section, echoed in the answer.
	question []byte
	// rd is the query's recursion-desired bit, echoed as DNS requires.
	rd bool
}

var errDNS = errors.New("DNS: malformed query")

// ParseDNSQuery reads a standard query with exactly one question and no
// compression in it (a query has nothing to point back to). Anything else
// is an error; the stub then answers FORMERR when it can read the id.
func ParseDNSQuery(b []byte) (DNSQuery, error) {
	if len(b) < 12 || len(b) > maxDNSMessage {
		return DNSQuery{}, errDNS
	}
	q := DNSQuery{ID: binary.BigEndian.Uint16(b[0:2])}
	flags := binary.BigEndian.Uint16(b[2:4])
	// QR must be 0 (a query) and the opcode 0 (a standard query).
	if flags&0x8000 != 0 || flags&0x7800 != 0 {
		return q, errDNS
	}
	q.rd = flags&0x0100 != 0
	if binary.BigEndian.Uint16(b[4:6]) != 1 || binary.BigEndian.Uint16(b[6:8]) != 0 || binary.BigEndian.Uint16(b[8:10]) != 0 {
		return q, errDNS
	}
	// ARCOUNT may hold an EDNS OPT record after the question; it is not
	// read, and the answer carries none.
	off := 12
	var labels []string
	for {
		if off >= len(b) {
			return q, errDNS
		}
		n := int(b[off])
		off++
		if n == 0 {
			break
		}
		if n > 63 || off+n > len(b) {
			return q, errDNS
		}
		labels = append(labels, string(b[off:off+n]))
		off += n
	}
	if off+4 > len(b) {
		return q, errDNS
	}
	q.Type = binary.BigEndian.Uint16(b[off : off+2])
	q.Class = binary.BigEndian.Uint16(b[off+2 : off+4])
	q.question = b[12 : off+4]
	q.Name = strings.Join(labels, ".")
	if len(q.Name) > 253 {
		return q, errDNS
	}
	return q, nil
}

// dnsReply builds the answer to q: rcode, and when addr is valid one A or
// AAAA record of it (a name pointer to the question).
func dnsReply(q DNSQuery, rcode int, addr netip.Addr) []byte {
	out := make([]byte, 12, 12+len(q.question)+28)
	binary.BigEndian.PutUint16(out[0:2], q.ID)
	flags := uint16(0x8000 | 0x0400 | 0x0080) // a response, authoritative, recursion available
	if q.rd {
		flags |= 0x0100
	}
	flags |= uint16(rcode & 0xf)
	binary.BigEndian.PutUint16(out[2:4], flags)
	if q.question == nil {
		return out
	}
	binary.BigEndian.PutUint16(out[4:6], 1)
	out = append(out, q.question...)
	if addr.IsValid() {
		binary.BigEndian.PutUint16(out[6:8], 1)
		raw := addr.AsSlice()
		typ := uint16(dnsTypeA)
		if len(raw) == 16 {
			typ = dnsTypeAAAA
		}
		out = append(out, 0xc0, 12) // the name: a pointer to the question's
		out = binary.BigEndian.AppendUint16(out, typ)
		out = binary.BigEndian.AppendUint16(out, dnsClassIN)
		out = binary.BigEndian.AppendUint32(out, dnsTTL)
		out = binary.BigEndian.AppendUint16(out, uint16(len(raw)))
		out = append(out, raw...)
	}
	return out
}

// dnsError builds the answer to a query that could not be read: FORMERR
// with the id, when there is one.
func dnsError(b []byte) []byte {
	if len(b) < 2 {
		return nil
	}
	return dnsReply(DNSQuery{ID: binary.BigEndian.Uint16(b[0:2])}, dnsRcodeFormErr, netip.Addr{})
}
