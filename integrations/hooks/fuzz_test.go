package hooks

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The ordered object reader accepts exactly one JSON object, and writing
// it back gives valid JSON with the same keys in the same order.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{theirs, "{}", `{"a":1,"a":2}`, "[]", "{", `{"hooks":{"PreToolUse":[{"hooks":[]}]}}`, "{} {}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := parseObject(data, 0)
		if err != nil {
			if se, ok := err.(*syntaxError); !ok || se.offset < 0 || se.offset > int64(len(data)) {
				t.Fatalf("error %v (%T) is not a syntax error within the input", err, err)
			}
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", err)
		}
		out, err := o.MarshalJSON()
		if err != nil || !json.Valid(out) {
			t.Fatalf("wrote invalid JSON %q: %v", out, err)
		}
		back, err := parseObject(out, 0)
		if err != nil || len(back.keys) != len(o.keys) {
			t.Fatalf("round trip: %v", err)
		}
		for i, k := range o.keys {
			if back.keys[i] != k || !bytes.Equal(back.vals[k], o.vals[k]) {
				t.Fatalf("round trip changed key %d", i)
			}
		}
	})
}
