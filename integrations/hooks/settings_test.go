package hooks

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/integrations/hook"
)

const theirs = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --check"}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/bin/gatedexec hook claude-code"}, {"type": "command", "command": "audit.sh"}]}
    ],
    "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "log.sh"}]}]
  },
  "env": {"A": "1"}
}
`

func target(t *testing.T, content string) Target {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if content != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Target{Agent: hook.ClaudeCode, Path: path, Command: Command("/usr/local/bin/gatedexec", hook.ClaudeCode)}
}

// settings is the part of a settings file the tests read.
type settings struct {
	Hooks map[string][]struct {
		Matcher string
		Hooks   []struct{ Type, Command string }
	}
}

func read(t *testing.T, path string) (settings, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s settings
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s, string(b)
}

// commands lists the PreToolUse hook commands.
func commands(s settings) []string {
	var out []string
	for _, g := range s.Hooks["PreToolUse"] {
		for _, h := range g.Hooks {
			out = append(out, g.Matcher+" "+h.Command)
		}
	}
	return out
}

// Install merges: the user's keys (in their order) and hooks stay, a
// gatedexec hook of another binary is replaced, and a second install
// changes nothing; the previous file is kept.
func TestInstallMerges(t *testing.T) {
	tg := target(t, theirs)
	res, err := Install(tg)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Backup != tg.Path+".bak" {
		t.Fatalf("result %+v", res)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != theirs {
		t.Errorf("backup holds %q, want the previous file", b)
	}
	s, text := read(t, tg.Path)
	want := []string{"Edit|Write prettier --check", "Bash audit.sh", "Bash '/usr/local/bin/gatedexec' hook claude-code"}
	if got := commands(s); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("PreToolUse hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Hooks["PostToolUse"]) != 1 {
		t.Errorf("PostToolUse hooks lost: %s", text)
	}
	order := []string{`"model"`, `"permissions"`, `"hooks"`, `"env"`}
	for i := 1; i < len(order); i++ {
		if strings.Index(text, order[i-1]) > strings.Index(text, order[i]) {
			t.Errorf("keys reordered: %s", text)
		}
	}
	os.Remove(res.Backup)
	again, err := Install(tg)
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed || again.Backup != "" {
		t.Errorf("second install: %+v", again)
	}
	if _, err := os.Stat(tg.Path + ".bak"); err == nil {
		t.Error("an unchanged install wrote a backup")
	}
	if _, text2 := read(t, tg.Path); text2 != text {
		t.Error("second install changed the file")
	}
}

// Uninstall removes gatedexec's hooks only, and a file left without hooks
// loses its empty "hooks".
func TestUninstall(t *testing.T) {
	tg := target(t, theirs)
	if _, err := Uninstall(tg); err != nil {
		t.Fatal(err)
	}
	s, _ := read(t, tg.Path)
	if got := commands(s); strings.Join(got, ",") != "Edit|Write prettier --check,Bash audit.sh" {
		t.Errorf("after uninstall: %q", got)
	}
	only := target(t, "")
	if _, err := Install(only); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(only); err != nil {
		t.Fatal(err)
	}
	if _, text := read(t, only.Path); strings.TrimSpace(text) != "{}" {
		t.Errorf("after install and uninstall in a new file: %s", text)
	}
	missing := target(t, "")
	if res, err := Uninstall(missing); err != nil || res.Changed {
		t.Errorf("uninstall without a file: %+v, %v", res, err)
	}
	if _, err := os.Stat(missing.Path); err == nil {
		t.Error("uninstall created the file")
	}
}

// Print writes nothing.
func TestPrint(t *testing.T) {
	tg := target(t, "")
	res, err := Print(tg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Content), `"matcher": "Bash"`) {
		t.Errorf("print: %s", res.Content)
	}
	if _, err := os.Stat(tg.Path); err == nil {
		t.Error("print wrote the file")
	}
}

// A file that is not valid JSON, or whose hooks have the wrong shape, is
// refused (ErrConfig) naming file:line:col, and left as it was.
func TestRefusesBadSettings(t *testing.T) {
	cases := []struct{ name, content, where string }{
		{"syntax", "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n", ":3:"},
		{"truncated", "{\n  \"model\": \"opus\",\n", ":3:"},
		{"not an object", "[1, 2]\n", ":1:"},
		{"trailing", "{}\n{}\n", ":2:"},
		{"hooks a list", "{\n  \"hooks\": []\n}\n", ":2:"},
		{"PreToolUse an object", "{\n  \"hooks\": {\n    \"PreToolUse\": {}\n  }\n}\n", ":3:"},
		{"group a string", "{\"hooks\": {\"PreToolUse\": [\"x\"]}}", ":1:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := target(t, c.content)
			for _, edit := range []func(Target) (*Result, error){Install, Uninstall, Print} {
				_, err := edit(tg)
				if !errors.Is(err, gate.ErrConfig) || !strings.Contains(err.Error(), tg.Path+c.where) {
					t.Errorf("error %v: want ErrConfig naming %s%s", err, tg.Path, c.where)
				}
			}
			if b, _ := os.ReadFile(tg.Path); string(b) != c.content {
				t.Error("a refused file was changed")
			}
		})
	}
}

// Each agent and scope has its file.
func TestSettingsPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		agent hook.Agent
		scope Scope
		want  string
	}{
		{hook.ClaudeCode, User, "/home/u/.claude/settings.json"},
		{hook.ClaudeCode, Project, "/p/.claude/settings.json"},
		{hook.Codex, User, "/home/u/.codex/hooks.json"},
		{hook.Codex, Project, "/p/.codex/hooks.json"},
	}
	for _, c := range cases {
		if got, err := SettingsPath(c.agent, c.scope, getenv, "/p"); err != nil || got != c.want {
			t.Errorf("%s %s: %q, %v; want %q", c.agent, c.scope, got, err, c.want)
		}
	}
	env["CODEX_HOME"], env["CLAUDE_CONFIG_DIR"] = "/c", "/cc"
	if got, _ := SettingsPath(hook.Codex, User, getenv, ""); got != "/c/hooks.json" {
		t.Errorf("CODEX_HOME: %s", got)
	}
	if got, _ := SettingsPath(hook.ClaudeCode, User, getenv, ""); got != "/cc/settings.json" {
		t.Errorf("CLAUDE_CONFIG_DIR: %s", got)
	}
}

// IsOurs knows gatedexec's hook command however it is quoted and
// whatever the binary is called, and nothing else.
func TestIsOurs(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "gx")
	for _, f := range []string{exe, filepath.Join(dir, "other")} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(exe, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]bool{
		"gatedexec hook claude-code":                     true,
		"'/opt/my dir/gatedexec' hook codex":             true,
		"/usr/bin/gatedexec hook claude-code":            true,
		"/opt/gatedexec-1.2 hook claude-code -r x.rules": true,
		"gatedexec.old hook codex":                       true,
		"'" + exe + "' hook claude-code":                 true,
		dir + "/link hook codex":                         true,
		dir + "/other hook codex":                        false,
		"gx hook codex":                                  false,
		"gatedexec run -- ls":                            false,
		"gatedexec hook":                                 false,
		"gatedexec hook cursor":                          false,
		"gatedexec-1.2 hooks install --codex":            false,
		"my-gatedexec hook claude-code":                  false,
		"echo gatedexec hook":                            false,
		"gatedexec hook claude-code $(whoami)":           false,
	} {
		if IsOurs(cmd, exe) != want {
			t.Errorf("IsOurs(%q) = %v", cmd, !want)
		}
	}
}

// A binary with another name than gatedexec (a versioned copy, or any
// name for this very file) still recognises its own hook: install is
// idempotent and uninstall removes it.
func TestInstallRenamedBinary(t *testing.T) {
	for _, name := range []string{"gatedexec-1.2", "gx"} {
		t.Run(name, func(t *testing.T) {
			tg := target(t, theirs)
			exe := filepath.Join(t.TempDir(), name)
			tg.Exe = exe
			if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			tg.Command = Command(exe, hook.ClaudeCode)
			if res, err := Install(tg); err != nil || !res.Changed {
				t.Fatalf("install: changed %v, %v", res != nil && res.Changed, err)
			}
			installed, _ := read(t, tg.Path)
			if again, err := Install(tg); err != nil || again.Changed {
				t.Errorf("second install: changed %v, %v", again != nil && again.Changed, err)
			}
			s, text := read(t, tg.Path)
			want := []string{"Edit|Write prettier --check", "Bash audit.sh", "Bash " + tg.Command}
			if got := commands(s); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("PreToolUse hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if strings.Join(commands(installed), "\n") != strings.Join(commands(s), "\n") {
				t.Errorf("second install changed the hooks: %s", text)
			}
			if res, err := Uninstall(tg); err != nil || !res.Changed {
				t.Fatalf("uninstall: changed %v, %v", res != nil && res.Changed, err)
			}
			s, _ = read(t, tg.Path)
			if got := commands(s); strings.Join(got, ",") != "Edit|Write prettier --check,Bash audit.sh" {
				t.Errorf("after uninstall: %q", got)
			}
		})
	}
}

// A settings file that is a link (a dotfiles set-up) is edited where
// the link ends, in place of that file, and the link stays; the file's
// permission bits stay too, and the previous content is kept beside the
// link.
func TestInstallThroughLink(t *testing.T) {
	home := t.TempDir()
	real := filepath.Join(home, "dotfiles", "claude.json")
	link := filepath.Join(home, ".claude", "settings.json")
	for _, d := range []string{filepath.Dir(real), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(real, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(real, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "dotfiles", "claude.json"), link); err != nil {
		t.Fatal(err)
	}
	tg := Target{Agent: hook.ClaudeCode, Path: link, Command: Command("/usr/local/bin/gatedexec", hook.ClaudeCode)}
	for _, edit := range []func(Target) (*Result, error){Install, Uninstall} {
		res, err := edit(tg)
		if err != nil || !res.Changed {
			t.Fatalf("edit: changed %v, %v", res != nil && res.Changed, err)
		}
		if res.Path != real {
			t.Errorf("wrote %s, want %s", res.Path, real)
		}
		if dest, err := os.Readlink(link); err != nil || dest != filepath.Join("..", "dotfiles", "claude.json") {
			t.Errorf("the link is now %q, %v", dest, err)
		}
		if b, err := os.ReadFile(real); err != nil || string(b) != string(res.Content) {
			t.Errorf("the link's target holds %q, %v", b, err)
		}
		if fi, err := os.Stat(real); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("the target's mode is %v, %v; want 0644 kept", fi.Mode(), err)
		}
		if res.Backup != link+".bak" {
			t.Errorf("backup %q, want beside the link", res.Backup)
		}
		if ents, _ := os.ReadDir(filepath.Dir(real)); len(ents) != 1 {
			t.Errorf("the target's directory holds %d entries, want only the file", len(ents))
		}
	}
	if b, _ := os.ReadFile(link + ".bak"); !strings.Contains(string(b), "/usr/local/bin/gatedexec") {
		t.Errorf("the backup is not the content before the uninstall: %s", b)
	}
}

// A link to nothing is refused rather than replaced by a file.
func TestRefusesDanglingLink(t *testing.T) {
	tg := target(t, "")
	if err := os.MkdirAll(filepath.Dir(tg.Path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "missing.json"), tg.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(tg); !errors.Is(err, gate.ErrConfig) || !strings.Contains(err.Error(), tg.Path) {
		t.Errorf("error %v: want ErrConfig naming %s", err, tg.Path)
	}
	if fi, err := os.Lstat(tg.Path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
}

// An edit keeps the file's permission bits; a new file is the user's
// alone.
func TestInstallKeepsMode(t *testing.T) {
	for _, perm := range []os.FileMode{0o600, 0o640, 0o644, 0o664} {
		tg := target(t, theirs)
		if err := os.Chmod(tg.Path, perm); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(tg); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(tg.Path); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("mode %v, %v after install; want %v", fi.Mode(), err, perm)
		}
	}
	tg := target(t, "")
	if _, err := Install(tg); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(tg.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("new file's mode %v, %v; want 0600", fi.Mode(), err)
	}
}

// A file nobody may write (0444) is refused, naming it, whoever runs the
// edit: its owner made it read-only, and replacing it would undo that.
// A file the user may not write though others may is refused too, which
// only a user other than root can see: root may write any file.
func TestRefusesUnwritableFile(t *testing.T) {
	cases := []struct {
		perm     os.FileMode
		rootSees bool
	}{
		{0o444, true},
		{0o400, true},
		{0o464, false}, // the group may write, the owner may not
	}
	for _, c := range cases {
		t.Run(c.perm.String(), func(t *testing.T) {
			if !c.rootSees && os.Geteuid() == 0 {
				t.Skip("running as root, which may write any file: access(2) cannot refuse it here")
			}
			tg := target(t, theirs)
			if err := os.Chmod(tg.Path, c.perm); err != nil {
				t.Fatal(err)
			}
			for _, edit := range []func(Target) (*Result, error){Install, Uninstall} {
				_, err := edit(tg)
				if !errors.Is(err, gate.ErrConfig) || !strings.Contains(err.Error(), tg.Path) {
					t.Errorf("error %v: want ErrConfig naming %s", err, tg.Path)
				}
			}
			if b, _ := os.ReadFile(tg.Path); string(b) != theirs {
				t.Error("a refused file was changed")
			}
			if fi, err := os.Stat(tg.Path); err != nil || fi.Mode().Perm() != c.perm {
				t.Errorf("mode %v, %v", fi.Mode(), err)
			}
			if _, err := os.Stat(tg.Path + ".bak"); err == nil {
				t.Error("a refused edit wrote a backup")
			}
			if res, err := Print(tg); err != nil || !res.Changed {
				t.Errorf("print of a read-only file: %v", err)
			}
		})
	}
}

// A directory the user may not write fails the edit with an error naming
// the file, and leaves the file as it was.
func TestReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may write in any directory: the failure cannot happen here")
	}
	tg := target(t, theirs)
	dir := filepath.Dir(tg.Path)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if _, err := Install(tg); err == nil || !strings.Contains(err.Error(), tg.Path) {
		t.Errorf("error %v: want one naming %s", err, tg.Path)
	}
	if b, _ := os.ReadFile(tg.Path); string(b) != theirs {
		t.Error("the file was changed")
	}
}
