package approval

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestArgvJSON(t *testing.T) {
	for _, tc := range []struct {
		argv Argv
		want string
	}{
		{nil, `null`},
		{Argv{}, `[]`},
		// Valid UTF-8 keeps the plain shape of DESIGN §2.
		{Argv{"touch", "a b", "ü", "\ufffd"}, `["touch","a b","ü","` + "\ufffd" + `"]`},
		{Argv{"touch", "h\xff"}, `["touch",{"b64":"aP8="}]`},
		{Argv{"\xef\xbf"}, `[{"b64":"778="}]`},
	} {
		b, err := json.Marshal(tc.argv)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%q) = %s, %v; want %s", tc.argv, b, err, tc.want)
			continue
		}
		var back Argv
		if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, tc.argv) || (back == nil) != (tc.argv == nil) {
			t.Errorf("round trip of %q = %q, %v", tc.argv, back, err)
		}
	}
}

// TestArgvJSONNoHTMLEscaping: Argv writes no HTML escapes itself (an
// Encoder with SetEscapeHTML(false) keeps them out), and escapes what
// must be escaped as encoding/json does.
func TestArgvJSONNoHTMLEscaping(t *testing.T) {
	b, err := Argv{"a<b>&c", "x\"\\\n\x01", "\u2028"}.MarshalJSON()
	if want := `["a<b>&c","x\"\\\n\u0001","\u2028"]`; err != nil || string(b) != want {
		t.Errorf("MarshalJSON = %s, %v; want %s", b, err, want)
	}
}

func TestArgvJSONRejects(t *testing.T) {
	for _, in := range []string{
		`[1]`, `[{}]`, `[{"b64":"aP8=","x":1}]`, `[{"B64":"aP8="}]`, `[{"b64":"aP8"}]`, `[{"b64":1}]`, `{"b64":"aP8="}`,
	} {
		var a Argv
		if err := json.Unmarshal([]byte(in), &a); err == nil {
			t.Errorf("Unmarshal(%s) = %q, want an error", in, a)
		}
	}
}

// TestRecordExactBytes: an audit record keeps the exact argv and cwd.
func TestRecordExactBytes(t *testing.T) {
	rec := Record{Argv: Argv{"touch", "h\xff"}, Cwd: Bytes("/d\xfe")}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Argv Argv  `json:"argv"`
		Cwd  Bytes `json:"cwd"`
	}
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back.Argv, rec.Argv) || back.Cwd != rec.Cwd {
		t.Fatalf("record %s read back as %q %q, %v", b, back.Argv, back.Cwd, err)
	}
}
