package jsonstr

import "strconv"

// Object appends the members of one JSON object to B in the order they
// are written, as encoding/json writes a struct's fields in theirs: the
// hand-written MarshalJSON methods (audit records, check results, the
// profile a digest is taken of) are a list of these calls.
type Object struct {
	B   []byte
	n   int
	err error
}

// Key writes the member name k; its value is appended to B next.
func (o *Object) Key(k string) {
	if o.n == 0 {
		o.B = append(o.B, '{')
	} else {
		o.B = append(o.B, ',')
	}
	o.n++
	o.B = Append(o.B, k)
	o.B = append(o.B, ':')
}

// String writes the member k with the string v.
func (o *Object) String(k, v string) {
	o.Key(k)
	o.B = Append(o.B, v)
}

// StringOmit writes String(k, v) unless v is "" (omitempty).
func (o *Object) StringOmit(k, v string) {
	if v != "" {
		o.String(k, v)
	}
}

// Int writes the member k with the number v.
func (o *Object) Int(k string, v int64) {
	o.Key(k)
	o.B = strconv.AppendInt(o.B, v, 10)
}

// Uint writes the member k with the number v.
func (o *Object) Uint(k string, v uint64) {
	o.Key(k)
	o.B = strconv.AppendUint(o.B, v, 10)
}

// Bool writes the member k with v.
func (o *Object) Bool(k string, v bool) {
	o.Key(k)
	o.B = strconv.AppendBool(o.B, v)
}

// BoolOmit writes Bool(k, v) unless v is false (omitempty).
func (o *Object) BoolOmit(k string, v bool) {
	if v {
		o.Bool(k, v)
	}
}

// Marshaler writes the member k with what v's MarshalJSON writes, which
// must be compact JSON; its error is Close's.
func (o *Object) Marshaler(k string, v interface{ MarshalJSON() ([]byte, error) }) {
	o.Key(k)
	m, err := v.MarshalJSON()
	if err != nil && o.err == nil {
		o.err = err
	}
	o.B = append(o.B, m...)
}

// Close ends the object ({} when it has no member) and returns B and the
// first error of a Marshaler.
func (o *Object) Close() ([]byte, error) {
	if o.n == 0 {
		o.B = append(o.B, '{')
	}
	return append(o.B, '}'), o.err
}

// List writes the member k of o with xs, as AppendList writes it.
func List[T any](o *Object, k string, xs []T, elem func([]byte, T) []byte) {
	o.Key(k)
	o.B = AppendList(o.B, xs, elem)
}

// AppendList appends xs as encoding/json writes a slice: null when it is
// nil, else an array of its elements, each appended by elem.
func AppendList[T any](b []byte, xs []T, elem func([]byte, T) []byte) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, x)
	}
	return append(b, ']')
}
