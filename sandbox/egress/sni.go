package egress

import (
	"encoding/binary"
	"errors"
)

// MaxHello bounds the bytes of a ClientHello ServerName reads: a client
// that has sent more without naming a server is refused.
const MaxHello = 16 << 10

var errNotHello = errors.New("not a TLS ClientHello")

// ServerName returns the server name (SNI) of the TLS ClientHello at the
// start of b, with need > 0 when b holds only part of it: read that many
// more bytes and call again. A hello without a server name, or anything
// else, is an error: such a connection is refused, as its name is unknown.
func ServerName(b []byte) (name string, need int, err error) {
	// Record header: type 22 (handshake), version, length.
	if len(b) < 5 {
		return "", 5 - len(b), nil
	}
	if b[0] != 22 || b[1] != 3 {
		return "", 0, errNotHello
	}
	rec := int(binary.BigEndian.Uint16(b[3:5]))
	if rec > MaxHello || rec < 4 {
		return "", 0, errNotHello
	}
	if len(b) < 5+rec {
		return "", 5 + rec - len(b), nil
	}
	h := b[5 : 5+rec]
	// Handshake header: type 1 (ClientHello), 24-bit length. A hello
	// split over several records is refused rather than reassembled.
	if h[0] != 1 {
		return "", 0, errNotHello
	}
	hl := int(h[1])<<16 | int(h[2])<<8 | int(h[3])
	if hl > len(h)-4 {
		return "", 0, errNotHello
	}
	c := cursor(h[4 : 4+hl])
	if !c.skip(2+32) || !c.skipVec(1) || !c.skipVec(2) || !c.skipVec(1) {
		return "", 0, errNotHello
	}
	exts, ok := c.vec(2)
	if !ok {
		return "", 0, errNotHello
	}
	for len(exts) > 0 {
		e := cursor(exts)
		typ, ok1 := e.u16()
		data, ok2 := e.vec(2)
		if !ok1 || !ok2 {
			return "", 0, errNotHello
		}
		exts = e
		if typ != 0 { // server_name
			continue
		}
		list, ok := data.vec(2)
		if !ok {
			return "", 0, errNotHello
		}
		for len(list) > 0 {
			kind, ok1 := list.u8()
			host, ok2 := list.vec(2)
			if !ok1 || !ok2 {
				return "", 0, errNotHello
			}
			if kind == 0 {
				n, err := NormalizeHost(string(host))
				if err != nil {
					return "", 0, err
				}
				return n, 0, nil
			}
		}
	}
	return "", 0, errors.New("TLS ClientHello names no server")
}

// cursor reads big-endian fields off a byte slice.
type cursor []byte

func (c *cursor) skip(n int) bool {
	if len(*c) < n {
		return false
	}
	*c = (*c)[n:]
	return true
}

func (c *cursor) u8() (byte, bool) {
	if len(*c) < 1 {
		return 0, false
	}
	v := (*c)[0]
	*c = (*c)[1:]
	return v, true
}

func (c *cursor) u16() (uint16, bool) {
	if len(*c) < 2 {
		return 0, false
	}
	v := binary.BigEndian.Uint16(*c)
	*c = (*c)[2:]
	return v, true
}

// vec reads a vector with a length prefix of size bytes (1 or 2).
func (c *cursor) vec(size int) (cursor, bool) {
	if len(*c) < size {
		return nil, false
	}
	n := int((*c)[0])
	if size == 2 {
		n = int(binary.BigEndian.Uint16(*c))
	}
	*c = (*c)[size:]
	if len(*c) < n {
		return nil, false
	}
	v := (*c)[:n]
	*c = (*c)[n:]
	return v, true
}

func (c *cursor) skipVec(size int) bool {
	_, ok := c.vec(size)
	return ok
}
