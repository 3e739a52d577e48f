package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAgentConfig(t *testing.T) {
	for _, c := range []struct {
		name                 string
		ws, home, configHome string
		want, wantNot        []string
	}{
		{"home elsewhere", "/w", "/h", "", []string{"/w/.claude", "/w/.mcp.json", "/w/.vscode", "/w/.codex", "/w/.idea"},
			[]string{"/h/.bashrc", "/w/.bashrc", "/h/.claude", "/h/.config/git/config", "/w/.gitmodules"}},
		{"workspace is home", "/h", "/h", "", []string{"/h/.claude", "/h/.bashrc", "/h/.zshrc", "/h/.profile", "/h/.gitconfig", "/h/.config/git/config"}, nil},
		{"home inside", "/w", "/w/u", "", []string{"/w/.claude", "/w/u/.claude", "/w/u/.bash_profile", "/w/u/.config/git/config"}, []string{"/w/.bashrc"}},
		{"workspace inside home", "/h/p", "/h", "", []string{"/h/p/.vscode"}, []string{"/h/.bashrc", "/h/.claude"}},
		{"config home in the workspace", "/w", "/h", "/w/cfg", []string{"/w/cfg/git/config"}, []string{"/h/.config/git/config"}},
		{"no home", "/w", "", "", []string{"/w/.claude"}, []string{"/.bashrc", "/.config/git/config"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := AgentConfig(c.ws, c.home, c.configHome)
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("AgentConfig lacks %s: %q", w, got)
				}
			}
			for _, w := range c.wantNot {
				if slices.Contains(got, w) {
					t.Errorf("AgentConfig lists %s: %q", w, got)
				}
			}
		})
	}
}

// TestWatchGitSettings: settings an agent or editor would run commands
// from, made or changed by the run, are reported with their own warning;
// ordinary files are not.
func TestWatchGitSettings(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".vscode", "tasks.json"), "{}")
	p := &Profile{Workspace: ws, Write: []string{ws}, Watch: AgentConfig(ws, "", "")}
	var warn bytes.Buffer
	res, err := WatchGit(p, &warn, func() (*Result, error) {
		time.Sleep(10 * time.Millisecond) // ctime granularity on coarse clocks
		writeFile(t, filepath.Join(ws, ".claude", "settings.json"), `{"hooks":{}}`)
		writeFile(t, filepath.Join(ws, ".vscode", "tasks.json"), `{"tasks":[]}`)
		writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
		return &Result{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(ws, ".claude"), filepath.Join(ws, ".vscode")}
	if !slices.Equal(res.Tampered, want) {
		t.Errorf("Tampered = %q, want %q", res.Tampered, want)
	}
	for _, w := range want {
		if !strings.Contains(warn.String(), "the command created or changed "+w+", from which agents, editors or shells") {
			t.Errorf("no warning for %s:\n%s", w, warn.String())
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude", "settings.json")); err != nil {
		t.Errorf("the settings were removed: %v", err)
	}
}

// TestGitWatchAfterWithoutBefore: a run with a result whose watch never
// scanned is reported unchecked, with a warning, not as clean; a watch of
// a profile that watches no git, and a run without a result, report
// nothing.
func TestGitWatchAfterWithoutBefore(t *testing.T) {
	ws := t.TempDir()
	p := &Profile{Workspace: ws, Write: []string{ws}}
	var warn bytes.Buffer
	res := &Result{}
	NewGitWatch(p, &warn).After(res)
	if !res.TamperIncomplete || !strings.Contains(warn.String(), "not scanned before the command") {
		t.Errorf("TamperIncomplete %v, warning %q; want it set and said", res.TamperIncomplete, warn.String())
	}
	warn.Reset()
	NewGitWatch(p, &warn).After(nil)
	unwatched := &Profile{Workspace: ws, Write: []string{ws}, Unrestricted: true}
	res = &Result{}
	NewGitWatch(unwatched, &warn).After(res)
	if res.TamperIncomplete || warn.Len() > 0 {
		t.Errorf("TamperIncomplete %v, warning %q; want neither", res.TamperIncomplete, warn.String())
	}
}
