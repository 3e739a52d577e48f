// Package hooks wires `gatedexec hook` into an agent's settings file:
// Claude Code's settings.json and Codex's hooks.json, which share one
// shape, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type":
// "command", "command": "..."}]}]}}. The file is merged (everything else
// in it is kept, in its order), the edit is idempotent and atomic, and
// the previous file is kept beside it as FILE.bak.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/integrations/hook"
	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"golang.org/x/sys/unix"
)

// maxSettings bounds a settings file read.
const maxSettings = 16 << 20

// Scope is whose settings are edited.
type Scope string

// The scopes: the user's own settings, or the project's (committed with it).
const (
	User    Scope = "user"
	Project Scope = "project"
)

// Target is one settings file and the hook command it should run.
type Target struct {
	Agent hook.Agent
	// Path is the settings file.
	Path string
	// Command is the hook's command line.
	Command string
	// Exe is the gatedexec binary Command runs: a hook running the same
	// file is this one's, whatever name or link it goes by (see IsOurs).
	Exe string
}

// SettingsPath returns the agent's settings file for scope: Claude Code's
// ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json) or
// PROJECT/.claude/settings.json; Codex's ~/.codex/hooks.json
// ($CODEX_HOME/hooks.json) or PROJECT/.codex/hooks.json.
func SettingsPath(agent hook.Agent, scope Scope, getenv func(string) string, project string) (string, error) {
	home := getenv("HOME")
	switch {
	case agent == hook.ClaudeCode && scope == Project:
		return filepath.Join(project, ".claude", "settings.json"), nil
	case agent == hook.Codex && scope == Project:
		return filepath.Join(project, ".codex", "hooks.json"), nil
	case agent == hook.ClaudeCode && getenv("CLAUDE_CONFIG_DIR") != "":
		return filepath.Join(getenv("CLAUDE_CONFIG_DIR"), "settings.json"), nil
	case agent == hook.Codex && getenv("CODEX_HOME") != "":
		return filepath.Join(getenv("CODEX_HOME"), "hooks.json"), nil
	case home == "":
		return "", errors.New("HOME is not set: cannot find the user's settings")
	case agent == hook.ClaudeCode:
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	return filepath.Join(home, ".codex", "hooks.json"), nil
}

// Result says what an edit did.
type Result struct {
	// Content is the file as it is after the edit (or would be, for
	// Print).
	Content []byte
	// Changed is false when the file already said what was asked.
	Changed bool
	// Backup is where the previous file was kept; "" when none was.
	Backup string
	// Path is the file written, or that would be: Target.Path, or the
	// file its symbolic links end at.
	Path string
}

// Install adds the hook to the target's file, replacing any gatedexec
// hook already there.
func Install(t Target) (*Result, error) { return t.edit(true, true) }

// Uninstall removes every gatedexec hook from the target's file.
func Uninstall(t Target) (*Result, error) { return t.edit(false, true) }

// Print returns what Install would write, and writes nothing.
func Print(t Target) (*Result, error) { return t.edit(true, false) }

func (t Target) edit(install, write bool) (*Result, error) {
	path, err := linkTarget(t.Path)
	if err != nil {
		return nil, err
	}
	old, st, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	exists := st != nil
	if !exists && !install {
		return &Result{Path: path}, nil
	}
	top := newObject()
	if exists && len(bytes.TrimSpace(old)) > 0 {
		if top, err = parseObject(old, 0); err != nil {
			return nil, t.syntax(old, err)
		}
	}
	if err := t.merge(top, old, install); err != nil {
		return nil, err
	}
	raw, err := top.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var content bytes.Buffer
	if err := json.Indent(&content, raw, "", "  "); err != nil {
		return nil, err
	}
	content.WriteByte('\n')
	res := &Result{Content: content.Bytes(), Changed: !bytes.Equal(content.Bytes(), old), Path: path}
	if !write || !res.Changed {
		return res, nil
	}
	// A new file is the user's alone; an edited one keeps its mode.
	perm := os.FileMode(0o600)
	if exists {
		if err := writable(path, st.Mode()); err != nil {
			return nil, err
		}
		perm = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if exists {
		// Beside the name the user knows, not in a dotfiles directory
		// the link leads to.
		res.Backup = t.Path + ".bak"
		if err := atomicfile.Write(res.Backup, old, true); err != nil {
			return nil, fmt.Errorf("keeping the previous %s: %w", t.Path, err)
		}
	}
	if err := atomicfile.WritePerm(path, res.Content, true, perm); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// linkTarget returns the file the settings file path stands for: path
// itself, or, when it is a symbolic link (a dotfiles set-up links
// ~/.claude/settings.json into a repository), the file its links end
// at, which an edit replaces so that the link stays. A link to nothing
// is refused: writing a file where it points, or a file in its place,
// would each guess at what the user meant.
func linkTarget(path string) (string, error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		// A missing file is made; any other error is readSettings' to
		// report.
		return path, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%w: %s: a symbolic link whose target cannot be found: %w", gate.ErrConfig, path, err)
	}
	return real, nil
}

// writable refuses to replace the settings file at path, of mode mode,
// when the user may not write it: its write bits are all off (its owner
// made it read-only, which root too is held to), or access(2) says the
// user may not. The edit replaces the file by a rename in its directory,
// which needs no write access to the file itself; without this check it
// would quietly replace a file the user could not have edited.
func writable(path string, mode os.FileMode) error {
	if mode.Perm()&0o222 == 0 {
		return fmt.Errorf("%w: %s is read-only (mode %04o): make it writable to edit it", gate.ErrConfig, path, mode.Perm())
	}
	if err := unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS); err != nil {
		return fmt.Errorf("%w: %s: not writable by this user: %w", gate.ErrConfig, path, err)
	}
	return nil
}

// merge removes gatedexec's hooks from top's hooks.PreToolUse and, to
// install, appends the target's.
func (t Target) merge(top *object, data []byte, install bool) error {
	hooksObj := newObject()
	if raw, ok := top.vals["hooks"]; ok {
		var err error
		if hooksObj, err = parseObject(raw, top.at["hooks"]); err != nil {
			return t.typeError(data, top.at["hooks"], `"hooks" must be an object`)
		}
	}
	var groups []json.RawMessage
	if raw, ok := hooksObj.vals["PreToolUse"]; ok {
		if err := json.Unmarshal(raw, &groups); err != nil {
			return t.typeError(data, hooksObj.at["PreToolUse"], `"hooks.PreToolUse" must be an array`)
		}
	}
	kept := groups[:0:0]
	for _, g := range groups {
		ng, keep, err := withoutOurs(g, t.Exe)
		if err != nil {
			return t.typeError(data, hooksObj.at["PreToolUse"], err.Error())
		}
		if keep {
			kept = append(kept, ng)
		}
	}
	if install {
		ours, err := json.Marshal(map[string]any{
			"matcher": "Bash",
			"hooks":   []map[string]string{{"type": "command", "command": t.Command}},
		})
		if err != nil {
			return err
		}
		kept = append(kept, ours)
	}
	switch {
	case len(kept) > 0:
		b, err := json.Marshal(kept)
		if err != nil {
			return err
		}
		hooksObj.set("PreToolUse", b)
	default:
		hooksObj.del("PreToolUse")
	}
	if len(hooksObj.keys) == 0 {
		top.del("hooks")
		return nil
	}
	b, err := hooksObj.MarshalJSON()
	if err != nil {
		return err
	}
	top.set("hooks", b)
	return nil
}

// withoutOurs returns the matcher group g without gatedexec's handlers
// (IsOurs, for the binary exe), and whether anything is left of it. A group that held none is returned
// as it was.
func withoutOurs(g json.RawMessage, exe string) (json.RawMessage, bool, error) {
	grp, err := parseObject(g, 0)
	if err != nil {
		return nil, false, errors.New(`each entry of "hooks.PreToolUse" must be an object`)
	}
	var handlers []json.RawMessage
	if raw, ok := grp.vals["hooks"]; ok {
		if err := json.Unmarshal(raw, &handlers); err != nil {
			return nil, false, errors.New(`the "hooks" of each PreToolUse entry must be an array`)
		}
	}
	var kept []json.RawMessage
	for _, h := range handlers {
		var hd struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		}
		if json.Unmarshal(h, &hd) == nil && hd.Type == "command" && IsOurs(hd.Command, exe) {
			continue
		}
		kept = append(kept, h)
	}
	if len(kept) == len(handlers) {
		return g, true, nil
	}
	if len(kept) == 0 {
		return nil, false, nil
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return nil, false, err
	}
	grp.set("hooks", b)
	out, err := grp.MarshalJSON()
	return out, true, err
}

// IsOurs reports whether a hook command line runs `gatedexec hook`: its
// words are PROGRAM hook claude-code|codex, maybe with flags after, and
// PROGRAM is the binary exe (the same file, through any link to it) or
// has a name starting "gatedexec" (gatedexec-1.2, an older copy). A
// name alone would miss a binary installed under another one, and
// leave its hook behind at uninstall or twice at install; the words
// keep another program's hook from being taken for ours.
func IsOurs(command, exe string) bool {
	words, err := approval.SplitCommand(command)
	if err != nil || len(words) < 3 || words[1] != "hook" {
		return false
	}
	if _, err := hook.ParseAgent(words[2]); err != nil {
		return false
	}
	return strings.HasPrefix(filepath.Base(words[0]), "gatedexec") || sameFile(words[0], exe)
}

// sameFile reports whether the absolute path prog is the file exe, both
// resolved through their links. A relative path is left out: it depends
// on the directory the agent runs the hook in, which is not known here.
func sameFile(prog, exe string) bool {
	if exe == "" || !filepath.IsAbs(prog) {
		return false
	}
	a, err := os.Stat(prog)
	if err != nil {
		return false
	}
	b, err := os.Stat(exe)
	return err == nil && os.SameFile(a, b)
}

// readSettings reads the settings file and returns it with its
// FileInfo; a missing file is no error, and has none.
func readSettings(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s: not a regular file", gate.ErrConfig, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxSettings {
		return nil, nil, fmt.Errorf("%w: %s: larger than %d bytes", gate.ErrConfig, path, maxSettings)
	}
	return b, st, nil
}

// syntax turns a parse error of the file into ErrConfig naming file:line:col.
func (t Target) syntax(data []byte, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: %w", gate.ErrConfig, positionError(t.Path, data, se.offset, "not valid JSON: "+se.msg))
	}
	return fmt.Errorf("%w: %s: not valid JSON: %w", gate.ErrConfig, t.Path, err)
}

// typeError is ErrConfig naming file:line:col of a value of the wrong type.
func (t Target) typeError(data []byte, offset int64, msg string) error {
	return fmt.Errorf("%w: %w", gate.ErrConfig, positionError(t.Path, data, offset, msg))
}

// Command is the hook command line for agent, running the gatedexec at exe.
func Command(exe string, agent hook.Agent) string {
	return "'" + strings.ReplaceAll(exe, "'", `'\''`) + "' hook " + string(agent)
}
