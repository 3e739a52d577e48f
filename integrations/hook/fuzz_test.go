package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The event parser takes anything: what it accepts has every field an
// answer needs, and a rewrite keeps every field of the tool input but
// the command.
func FuzzParseEvent(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(strings.NewReplacer("$CWD", "/w", "$COMMAND", "ls").Replace(string(b)))
	}
	f.Add(`{"hook_event_name":"PreToolUse","tool_name":"Bash","session_id":"s","cwd":"/","tool_input":{"command":"a\u0000"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		ev, err := parseEvent(strings.NewReader(in))
		if err != nil {
			return
		}
		if ev.HookEventName != "PreToolUse" || ev.ToolName == "" || ev.SessionID == "" || !filepath.IsAbs(ev.Cwd) {
			t.Fatalf("accepted an event lacking a field: %+v", ev)
		}
		si, err := ev.shell()
		if err != nil {
			return
		}
		if strings.TrimSpace(si.command) == "" || strings.ContainsRune(si.command, 0) {
			t.Fatalf("accepted command %q", si.command)
		}
		out, err := si.with("replaced")
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != len(si.fields) || string(out["command"]) != `"replaced"` {
			t.Fatalf("rewrite %v of %v", out, si.fields)
		}
		for k, v := range si.fields {
			if k != "command" && !bytes.Equal(out[k], v) {
				t.Fatalf("rewrite changed %s", k)
			}
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("rewrite does not encode: %v", err)
		}
	})
}

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
		got, err := objectMembers(in)
		var want map[string]json.RawMessage
		werr := json.Unmarshal(in, &want)
		if werr == nil && want == nil {
			return // null: Unmarshal leaves the map nil; objectMembers refuses it
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("objectMembers(%q) error %v, encoding/json error %v", in, err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("objectMembers(%q) = %q, encoding/json %q", in, got, want)
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("objectMembers(%q)[%q] = %s, encoding/json %s", in, k, got[k], v)
			}
		}
	})
}
