package cachefile

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

var errTest = errors.New("test entry damaged")

// A body written with AppendString and binary's varints reads back; a
// damaged one fails at its first bad read, every read after it is zero,
// and the error wraps the caller's.
func TestDecoder(t *testing.T) {
	var b []byte
	b = binary.AppendUvarint(b, 5)
	b = binary.AppendUvarint(b, math.MaxUint64)
	b = binary.AppendVarint(b, -3)
	b = binary.AppendVarint(b, math.MinInt64)
	b = AppendString(b, "héllo")
	b = append(b, 7)
	b = binary.AppendUvarint(b, 2) // a count of two strings
	b = AppendString(AppendString(b, "a"), "")
	d := NewDecoder(string(b), errTest)
	if u := d.Uvarint(); u != 5 {
		t.Errorf("Uvarint = %d", u)
	}
	if u := d.Uvarint(); u != math.MaxUint64 {
		t.Errorf("Uvarint = %d", u)
	}
	if v := d.Varint(); v != -3 {
		t.Errorf("Varint = %d", v)
	}
	if v := d.Varint(); v != math.MinInt64 {
		t.Errorf("Varint = %d", v)
	}
	start := d.Off()
	if s := d.Str(); s != "héllo" || d.Since(start) != "\x06héllo" {
		t.Errorf("Str = %q, Since = %q", s, d.Since(start))
	}
	if c := d.Byte(); c != 7 {
		t.Errorf("Byte = %d", c)
	}
	if n := d.Count(1); n != 2 || d.Str() != "a" || d.Str() != "" {
		t.Errorf("Count = %d", n)
	}
	if err := d.End(); err != nil {
		t.Errorf("End = %v", err)
	}

	for _, tt := range []struct {
		name string
		body string
		read func(d *Decoder)
	}{
		{"truncated number", "\x80", func(d *Decoder) { d.Uvarint() }},
		{"number too long", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", func(d *Decoder) { d.Uvarint() }},
		{"number past 64 bits", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", func(d *Decoder) { d.Uvarint() }},
		{"zero not in its shortest form", "\x80\x00", func(d *Decoder) { d.Uvarint() }},
		{"a number not in its shortest form", "\x81\x80\x00", func(d *Decoder) { d.Uvarint() }},
		{"string past the end", "\x05abc", func(d *Decoder) { d.Str() }},
		{"count past the end", "\x03ab", func(d *Decoder) { d.Count(1) }},
		{"count of wide items", "\x02abc", func(d *Decoder) { d.Count(2) }},
		{"bytes past the end", "ab", func(d *Decoder) { d.Bytes(3) }},
		{"no byte", "", func(d *Decoder) { d.Byte() }},
		{"trailing bytes", "\x01x", func(d *Decoder) { d.Byte() }},
	} {
		d := NewDecoder(tt.body, errTest)
		tt.read(d)
		err := d.End()
		if !errors.Is(err, errTest) {
			t.Errorf("%s: End = %v, want it to wrap %v", tt.name, err, errTest)
		}
		if d.Uvarint() != 0 || d.Str() != "" || d.Byte() != 0 || d.Count(1) != 0 || d.End() != err {
			t.Errorf("%s: a read after the error is not zero, or the error changed", tt.name)
		}
	}
}
