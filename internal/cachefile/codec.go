package cachefile

import (
	"encoding/binary"
	"fmt"
)

// AppendString appends s after its length, as Decoder.Str reads it.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// Decoder reads the body of an entry. After the first error every read
// returns a zero value and counts read as zero, which ends every loop, so
// a caller checks Err (or End) once at the end.
type Decoder struct {
	s       string
	off     int
	err     error
	damaged error
}

// NewDecoder reads body; its errors wrap damaged, the caller's error for
// an entry that is not what its encoder wrote.
func NewDecoder(body string, damaged error) *Decoder {
	return &Decoder{s: body, damaged: damaged}
}

// Fail records the first error, at the current position, and stops every
// read after it.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", d.damaged, fmt.Sprintf(format, args...), d.off)
	}
	d.off = len(d.s)
}

// Err is the first error, or nil.
func (d *Decoder) Err() error { return d.err }

// End fails unless the whole body was read, and returns Err.
func (d *Decoder) End() error {
	if d.err == nil && d.off != len(d.s) {
		d.Fail("%d trailing bytes", len(d.s)-d.off)
	}
	return d.err
}

// Off is how many bytes have been read.
func (d *Decoder) Off() int { return d.off }

// Since returns the bytes read from off on.
func (d *Decoder) Since(off int) string { return d.s[off:d.off] }

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.s) {
		d.Fail("truncated")
		return 0
	}
	c := d.s[d.off]
	d.off++
	return c
}

// Bytes reads n bytes.
func (d *Decoder) Bytes(n int) string {
	if d.err != nil {
		return ""
	}
	if n < 0 || n > len(d.s)-d.off {
		d.Fail("truncated")
		return ""
	}
	s := d.s[d.off : d.off+n]
	d.off += n
	return s
}

// Uvarint reads a number binary.AppendUvarint wrote, in the shortest form,
// the only one it writes: a longer one for the same number (a last byte
// of zero after others) or one past 64 bits is damage, so that every body
// that reads is the one its encoder writes for what it read. Most are
// counts and lengths below 128, one byte: read here, inlined into the
// caller.
func (d *Decoder) Uvarint() uint64 {
	if off := d.off; off < len(d.s) {
		if c := d.s[off]; c < 0x80 {
			d.off = off + 1
			return uint64(c)
		}
	}
	return d.uvarint()
}

func (d *Decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if d.off >= len(d.s) {
			d.Fail("truncated number")
			return 0
		}
		c := d.s[d.off]
		d.off++
		if shift == 63 && c > 1 {
			break // bits past the 64th
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if c == 0 && shift > 0 {
				d.Fail("number not in its shortest form")
				return 0
			}
			return v
		}
	}
	d.Fail("number too long")
	return 0
}

// Varint reads a number binary.AppendVarint wrote.
func (d *Decoder) Varint() int64 {
	u := d.Uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// Count reads a count of items each at least min bytes long: a count the
// rest of the body cannot hold is damage.
func (d *Decoder) Count(min int) int {
	n := d.Uvarint()
	if n > uint64((len(d.s)-d.off)/min) {
		d.Fail("count %d exceeds the entry", n)
		return 0
	}
	return int(n)
}

// Str reads a string AppendString wrote.
func (d *Decoder) Str() string {
	n := d.Uvarint()
	if n > uint64(len(d.s)-d.off) {
		d.Fail("length %d exceeds the entry", n)
		return ""
	}
	s := d.s[d.off : d.off+int(n)]
	d.off += int(n)
	return s
}
