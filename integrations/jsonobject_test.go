package integrations

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzObjectMembers: the token-by-token reader accepts exactly the JSON
// objects encoding/json decodes into a map, with the same members.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"b":[true,null],"c":{"d":"e"}}`, `{"a":1,"a":2}`, ` {"k\u00e9":"\ud800"} `,
		`{"a":1} {}`, `[1]`, `null`, `"x"`, `{"a"}`, `{1:2}`, `{"a":1,}`, "{\"\xff\":1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := ObjectMembers(in)
		var want map[string]json.RawMessage
		werr := json.Unmarshal(in, &want)
		if werr == nil && want == nil {
			return // null: Unmarshal leaves the map nil; ObjectMembers refuses it
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("ObjectMembers(%q) error %v, encoding/json error %v", in, err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("ObjectMembers(%q) = %q, encoding/json %q", in, got, want)
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("ObjectMembers(%q)[%q] = %s, encoding/json %s", in, k, got[k], v)
			}
		}
	})
}
