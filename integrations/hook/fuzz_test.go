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
	f.Add(`{"hook_event_name":"PreToolUse","tool_name":"Bash","session_id":"s","cwd":"/","tool_input":{"command":"ls","shell":"/usr/bin/pwsh"}}`)
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
		if raw, ok := si.fields["shell"]; ok && posixShell(raw) != nil {
			t.Fatalf("accepted a tool input for the shell %s", raw)
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
