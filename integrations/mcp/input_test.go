package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestDecodeInput(t *testing.T) {
	tests := []struct {
		raw  string
		want Input
		err  string // a part of the error; "" for none
	}{
		{`{"command":"ls -l"}`, Input{Command: "ls -l"}, ""},
		{`{"command":"make","cwd":"sub","timeout":1.5}`, Input{Command: "make", Cwd: "sub", Timeout: 1.5}, ""},
		{` { "timeout" : 2 , "command" : "x" } `, Input{Command: "x", Timeout: 2}, ""},
		{`{"command":""}`, Input{}, ""}, // empty: refused by run, with its own reason
		{``, Input{}, "missing properties: command"},
		{`{}`, Input{}, "missing properties: command"},
		{`{"cwd":"/"}`, Input{}, "missing properties: command"},
		{`null`, Input{}, "want a JSON object"},
		{`[]`, Input{}, "want a JSON object"},
		{`"ls"`, Input{}, "want a JSON object"},
		{`{"command":"ls"`, Input{}, "want a JSON object"},
		{`{"command":"ls"} {}`, Input{}, "want a JSON object"},
		{`{"Command":"ls"}`, Input{}, `unexpected property "Command"`},
		{`{"command":"ls","approve":"yes"}`, Input{}, `unexpected property "approve"`},
		{`{"command":null}`, Input{}, `property "command": null`},
		{`{"command":["rm","-rf"]}`, Input{}, `property "command": array: want a string`},
		{`{"command":"ls","timeout":"5"}`, Input{}, `property "timeout": string: want a float64`},
		{`{"command":"ls","cwd":7}`, Input{}, `property "cwd": number: want a string`},
	}
	for _, tt := range tests {
		got, err := decodeInput(json.RawMessage(tt.raw))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("decodeInput(%s): %v", tt.raw, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("decodeInput(%s) = %+v, %v; want an error with %q", tt.raw, got, err, tt.err)
		case tt.err == "" && got != tt.want:
			t.Errorf("decodeInput(%s) = %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}

// FuzzDecodeInput checks decodeInput against the input schema the tool
// advertises, which the SDK validated every call with before: it accepts
// exactly what the schema accepts, and then decodes what encoding/json
// decodes.
func FuzzDecodeInput(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"command":"a","cwd":"b","timeout":3}`, `{"command":1}`, `{"x":1}`, `{"command":"a","command":"b"}`, `[]`} {
		f.Add([]byte(s))
	}
	schema, err := jsonschema.For[Input](nil)
	if err != nil {
		f.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := decodeInput(raw)
		var v any
		if json.Unmarshal(raw, &v) != nil {
			if err == nil {
				t.Fatalf("decodeInput(%q) accepted invalid JSON", raw)
			}
			return
		}
		if verr := resolved.Validate(v); (verr == nil) != (err == nil) {
			t.Fatalf("decodeInput(%q): %v; the schema says %v", raw, err, verr)
		}
		if err != nil {
			return
		}
		var want Input
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&want); err != nil || got != want {
			t.Fatalf("decodeInput(%q) = %+v; encoding/json decodes %+v (%v)", raw, got, want, err)
		}
	})
}
