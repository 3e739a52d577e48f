package profiles

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAgentConfigToken: ":agent-config" protects the agent and editor
// settings that exist at the workspace's root, and the home's with its
// shell start-up files when the workspace holds the home; it makes
// nothing for those that do not exist, and watches them all.
func TestAgentConfigToken(t *testing.T) {
	for _, c := range []struct {
		name       string
		home       string // relative to the fixture root
		xdg        string // XDG_CONFIG_HOME, relative to the fixture root; "" unset
		make       []string
		write      map[string]string // files with their content
		links      []string          // "path->target"
		protect    []string
		notProtect []string
		watch      []string
		notWatch   []string
	}{
		{name: "nothing there", home: "home",
			notProtect: []string{"ws/.claude", "ws/.vscode"},
			watch:      []string{"ws/.claude", "ws/.claude.json", "ws/.mcp.json", "ws/.codex", "ws/.vscode", "ws/.idea"},
			notWatch:   []string{"home/.bashrc", "ws/.bashrc"}},
		{name: "settings there", home: "home", make: []string{"ws/.claude/settings.json", "ws/.mcp.json", "ws/.vscode/tasks.json", "home/.bashrc"},
			protect:    []string{"ws/.claude", "ws/.mcp.json", "ws/.vscode"},
			notProtect: []string{"ws/.codex", "ws/.idea", "home/.bashrc", "ws/.claude/settings.json"}},
		{name: "workspace is the home", home: "ws", make: []string{"ws/.bashrc", "ws/.zshenv", "ws/.gitconfig", "ws/.config/git/config", "ws/.claude/settings.json"},
			protect:    []string{"ws/.bashrc", "ws/.zshenv", "ws/.gitconfig", "ws/.config/git/config", "ws/.claude"},
			notProtect: []string{"ws/.profile", "ws/.zshrc"},
			watch:      []string{"ws/.profile", "ws/.zshrc", "ws/.bash_profile", "ws/.zprofile"}},
		{name: "home below the workspace", home: "ws/sub", make: []string{"ws/sub/.profile", "ws/sub/.codex/config.toml"},
			protect: []string{"ws/sub/.profile", "ws/sub/.codex"}, watch: []string{"ws/sub/.bashrc"}},
		{name: "targets of the home's git config", home: "ws",
			write:   map[string]string{"ws/.gitconfig": "[core]\n\thooksPath = ~/.githooks\n[include]\n\tpath = ~/.gitconfig.local\n"},
			make:    []string{"ws/.githooks/pre-commit"},
			protect: []string{"ws/.gitconfig", "ws/.githooks"}, watch: []string{"ws/.gitconfig.local", "ws/.bash_aliases"},
			notProtect: []string{"ws/.gitconfig.local"}},
		{name: "links on the way", home: "home", make: []string{"ws/shared/claude/settings.json"},
			links:   []string{"ws/cfg->shared", "ws/.claude->cfg/claude"},
			protect: []string{"ws/shared/claude"}, watch: []string{"ws/cfg", "ws/.claude"},
			notProtect: []string{"ws/shared", "ws/cfg"}, notWatch: []string{"ws/shared"}},
		{name: "dangling link", home: "home", links: []string{"ws/.mcp.json->config/mcp.local.json"},
			watch: []string{"ws/config/mcp.local.json"}, notProtect: []string{"ws/config/mcp.local.json"}},
		{name: "link in a settings directory", home: "home", make: []string{"ws/.claude/x", "ws/config/claude-settings.json"},
			links:   []string{"ws/.claude/settings.json->../config/claude-settings.json"},
			protect: []string{"ws/.claude", "ws/config/claude-settings.json"}, watch: []string{"ws/.claude/settings.json"}},
		{name: "git config of XDG_CONFIG_HOME", home: "home", xdg: "ws/cfg", make: []string{"ws/cfg/git/config"},
			protect: []string{"ws/cfg/git/config"}, notWatch: []string{"home/.config/git/config"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.vars.Home = filepath.Join(f.root, c.home)
			env := map[string]string{}
			if c.xdg != "" {
				env["XDG_CONFIG_HOME"] = filepath.Join(f.root, c.xdg)
			}
			f.vars.Getenv = func(k string) string { return env[k] }
			for _, m := range c.make {
				p := filepath.Join(f.root, m)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, content := range c.write {
				p := filepath.Join(f.root, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, l := range c.links {
				name, target, _ := strings.Cut(l, "->")
				if err := os.Symlink(target, filepath.Join(f.root, name)); err != nil {
					t.Fatal(err)
				}
			}
			p, err := f.loader().Resolve("workspace-write")
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, list, rels []string, want bool) {
				for _, r := range rels {
					if slices.Contains(list, filepath.Join(f.root, r)) != want {
						t.Errorf("%s has %s: %v, want %v: %q", what, r, !want, want, list)
					}
				}
			}
			check("Protect", p.Protect, c.protect, true)
			check("Protect", p.Protect, c.notProtect, false)
			check("Watch", p.Watch, append(c.protect, c.watch...), true)
			check("Watch", p.Watch, c.notWatch, false)
			for _, r := range c.notProtect {
				if _, err := os.Lstat(filepath.Join(f.root, r)); err == nil && !slices.Contains(c.make, r) && !isParentOf(r, c.make) &&
					!slices.ContainsFunc(c.links, func(l string) bool { return strings.HasPrefix(l, r+"->") }) {
					t.Errorf("%s was made", r)
				}
			}
		})
	}
}

// isParentOf reports whether rel is a directory above one of made.
func isParentOf(rel string, made []string) bool {
	return slices.ContainsFunc(made, func(m string) bool { return len(m) > len(rel) && m[:len(rel)+1] == rel+"/" })
}
