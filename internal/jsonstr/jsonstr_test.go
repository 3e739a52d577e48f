package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// marshal is what Append must equal: encoding/json with HTML escaping off.
func marshal(t testing.TB, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestAppend(t *testing.T) {
	for _, s := range []string{
		"", "git status", `a"b\c`, "<a & b>", "\b\f\n\r\t", "\x00\x01\x1f\x7f",
		"é ü 日本", "\u2028\u2029", "\xff", "a\xe2\x80", "\xed\xa0\x80", "🙂", "\xf0\x9f\x99",
	} {
		if got, want := Append([]byte("x"), s), append([]byte("x"), marshal(t, s)...); !bytes.Equal(got, want) {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\"\\\n", "\u2028\xff", "日本\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append(nil, s), marshal(t, s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}
