package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestObject compares Object and List with encoding/json on a struct of
// every kind of member they write, empty and set.
func TestObject(t *testing.T) {
	type inner struct {
		X string `json:"x"`
	}
	type sample struct {
		S  string   `json:"s"`
		SO string   `json:"so,omitempty"`
		I  int64    `json:"i"`
		U  uint64   `json:"u"`
		B  bool     `json:"b"`
		BO bool     `json:"bo,omitempty"`
		L  []string `json:"l"`
		M  []inner  `json:"m"`
	}
	appendInner := func(b []byte, v inner) []byte {
		o := Object{B: b}
		o.String("x", v.X)
		b, _ = o.Close()
		return b
	}
	for _, v := range []sample{
		{},
		{S: "a<b", SO: "\u2028", I: -7, U: 1 << 63, B: true, BO: true, L: []string{}, M: []inner{}},
		{L: []string{"x", "\xff"}, M: []inner{{"1"}, {""}}},
	} {
		o := Object{B: []byte("prefix")}
		o.String("s", v.S)
		o.StringOmit("so", v.SO)
		o.Int("i", v.I)
		o.Uint("u", v.U)
		o.Bool("b", v.B)
		o.BoolOmit("bo", v.BO)
		List(&o, "l", v.L, Append)
		List(&o, "m", v.M, appendInner)
		got, err := o.Close()
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if w := append([]byte("prefix"), bytes.TrimSuffix(want.Bytes(), []byte("\n"))...); !bytes.Equal(got, w) {
			t.Errorf("Object = %s, want %s", got, w)
		}
	}
	if got, _ := (&Object{}).Close(); string(got) != "{}" {
		t.Errorf("an empty Object is %s, want {}", got)
	}
}
