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
