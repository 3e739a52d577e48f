// Package hook answers one agent PreToolUse event (Claude Code, Codex):
// a shell command is judged by the engine and either denied or rewritten
// into a `gatedexec run` of the same script, so that the sandbox always
// applies (DESIGN §10). Whatever goes wrong denies: a hook never fails
// open.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatedexec/gatedexec/integrations"
	"github.com/gatedexec/gatedexec/internal/jsonstr"
)

// MaxEvent bounds the event read from stdin: a command is text a model
// wrote, and nothing an agent sends comes near this.
const MaxEvent = 8 << 20

// event is the part of a PreToolUse event the hook reads; Claude Code and
// Codex send the same fields.
type event struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	PermissionMode string          `json:"permission_mode"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// shellInput is a shell tool's input: its fields by name, kept as sent
// so that the rewritten input changes the command only.
type shellInput struct {
	fields  map[string]json.RawMessage
	command string
}

// parseEvent reads exactly one JSON event object and checks the fields
// every event must have.
func parseEvent(r io.Reader) (*event, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEvent+1))
	if err != nil {
		return nil, fmt.Errorf("reading the event: %w", err)
	}
	if len(data) > MaxEvent {
		return nil, fmt.Errorf("event larger than %d bytes", MaxEvent)
	}
	members, err := integrations.ObjectMembers(data)
	if err != nil {
		return nil, fmt.Errorf("event is not a JSON object: %w", err)
	}
	ev := event{ToolInput: members["tool_input"]}
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"session_id", &ev.SessionID}, {"cwd", &ev.Cwd}, {"hook_event_name", &ev.HookEventName},
		{"permission_mode", &ev.PermissionMode}, {"tool_name", &ev.ToolName},
	} {
		if raw, ok := members[f.key]; ok && json.Unmarshal(raw, f.dst) != nil {
			return nil, fmt.Errorf("event: %s is not a string", f.key)
		}
	}
	switch {
	case ev.HookEventName == "":
		return nil, errors.New("event: missing hook_event_name")
	case ev.HookEventName != "PreToolUse":
		return nil, fmt.Errorf("event %q: only PreToolUse is answered", ev.HookEventName)
	case ev.ToolName == "":
		return nil, errors.New("event: missing tool_name")
	case ev.SessionID == "":
		return nil, errors.New("event: missing session_id")
	case ev.Cwd == "" || !filepath.IsAbs(ev.Cwd):
		return nil, fmt.Errorf("event: cwd %q is not an absolute path", ev.Cwd)
	}
	return &ev, nil
}

// shell reads the tool input of a shell tool: an object whose command is
// a non-empty string.
func (ev *event) shell() (*shellInput, error) {
	var in shellInput
	var err error
	if in.fields, err = integrations.ObjectMembers(ev.ToolInput); err != nil {
		return nil, fmt.Errorf("%s: tool_input is not a JSON object", ev.ToolName)
	}
	raw, ok := in.fields["command"]
	if !ok {
		return nil, fmt.Errorf("%s: tool_input has no command", ev.ToolName)
	}
	if err := json.Unmarshal(raw, &in.command); err != nil {
		return nil, fmt.Errorf("%s: tool_input.command is not a string", ev.ToolName)
	}
	switch {
	case strings.TrimSpace(in.command) == "":
		return nil, fmt.Errorf("%s: tool_input.command is empty", ev.ToolName)
	case strings.ContainsRune(in.command, 0):
		// No shell argument can hold a NUL: what would run is not what
		// was judged.
		return nil, fmt.Errorf("%s: tool_input.command holds a NUL byte", ev.ToolName)
	}
	if raw, ok := in.fields["shell"]; ok {
		if err := posixShell(raw); err != nil {
			return nil, fmt.Errorf("%s: tool_input.shell: %w", ev.ToolName, err)
		}
	}
	return &in, nil
}

// posixShells are the shells the rewritten command is quoted for.
var posixShells = []string{"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"}

// posixShell fails unless raw, the shell a tool input names (Codex lets
// the model pick one), is a JSON string naming a POSIX shell: the
// rewritten command quotes the script for one, and another shell
// (PowerShell, fish, cmd) would read those quotes otherwise, running
// what was never judged.
func posixShell(raw json.RawMessage) error {
	var sh string
	if err := json.Unmarshal(raw, &sh); err != nil {
		return errors.New("not a string")
	}
	if name := filepath.Base(sh); !slices.Contains(posixShells, name) {
		return fmt.Errorf("%q is not a POSIX shell, for which gatedexec quotes the command", sh)
	}
	return nil
}

// with returns the tool input with its command replaced.
func (in *shellInput) with(command string) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(in.fields))
	for k, v := range in.fields {
		out[k] = v
	}
	out["command"] = jsonstr.Append(nil, command)
	return out, nil
}

// marshal encodes v as JSON without HTML escaping, so that "a>b" in a
// command reads as itself in the agent's prompt.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
