package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAgentConfigReach: what the host reads through the settings is
// listed with them: the targets of the home's git config (core.hooksPath,
// include.path, "~/" from the home, includes of includes) when the
// workspace holds the home, the links on the way to a setting, the
// targets of links in a settings directory, and where a dangling link
// leads.
func TestAgentConfigReach(t *testing.T) {
	for _, c := range []struct {
		name    string
		home    string   // relative to the workspace; "-" for one outside it
		files   []string // "path" or "path=content", relative to the workspace
		links   []string // "path->target"
		want    []string // relative to the workspace
		wantNot []string
	}{
		{name: "home's hooks path and include", home: ".",
			files: []string{".gitconfig=[core]\n\thooksPath = ~/.githooks\n[include]\n\tpath = ~/.gitconfig.local\n",
				".githooks/", "lib/pre-push.sh"},
			links: []string{".githooks/pre-push->../lib/pre-push.sh"},
			want:  []string{".githooks", ".gitconfig.local", ".githooks/pre-push", "lib/pre-push.sh", ".bash_aliases"}},
		{name: "include of an include", home: ".",
			files: []string{".gitconfig=[include]\n\tpath = .config/git/more\n",
				".config/git/more=[includeIf \"gitdir:~/w/\"]\n\tpath = ~/hooks.inc\n", "hooks.inc=[core]\n\thooksPath = ~/h2\n"},
			want: []string{".config/git/more", "hooks.inc", "h2"}},
		{name: "home elsewhere", home: "-",
			files:   []string{".gitconfig=[core]\n\thooksPath = ~/.githooks\n"},
			wantNot: []string{".githooks", ".bash_aliases"}},
		{name: "links on the way", home: "-",
			files: []string{"shared/claude/settings.json"},
			links: []string{"cfg->shared", ".claude->cfg/claude"},
			want:  []string{"cfg", "shared/claude"}, wantNot: []string{"shared"}},
		{name: "dangling links", home: "-",
			links: []string{".mcp.json->config/mcp.local.json", ".claude->.shared-claude"},
			want:  []string{"config/mcp.local.json", ".shared-claude"}},
		{name: "links in a settings directory", home: "-",
			files: []string{".claude/", "config/claude-settings.json", "deep/x/hook.sh"},
			links: []string{".claude/settings.json->../config/claude-settings.json", ".claude/cmds->../dir", "dir->deep/x", "deep/x/run->hook.sh"},
			want:  []string{".claude/settings.json", "config/claude-settings.json", ".claude/cmds", "dir", "deep/x", "deep/x/run", "deep/x/hook.sh"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range c.files {
				name, content, _ := strings.Cut(f, "=")
				p := filepath.Join(ws, name)
				if strings.HasSuffix(name, "/") {
					os.MkdirAll(p, 0o755)
					continue
				}
				writeFile(t, p, content)
			}
			for _, l := range c.links {
				name, target, _ := strings.Cut(l, "->")
				os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755)
				if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
					t.Fatal(err)
				}
			}
			home := filepath.Join(ws, c.home)
			if c.home == "-" {
				home = t.TempDir()
			}
			got := AgentConfigReach(ws, home, "")
			for _, w := range c.want {
				if !slices.Contains(got, filepath.Join(ws, w)) {
					t.Errorf("lacks %s: %q", w, got)
				}
			}
			for _, w := range c.wantNot {
				if slices.Contains(got, filepath.Join(ws, w)) {
					t.Errorf("lists %s: %q", w, got)
				}
			}
		})
	}
}

// TestResolveLinks: a path is resolved as the kernel would, every link
// met on the way named with its directory resolved, and a missing part
// joined lexically.
func TestResolveLinks(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(d, "tools", "scripts"), 0o755)
	writeFile(t, filepath.Join(d, "tools", "scripts", "pre-commit.sh"), "")
	os.MkdirAll(filepath.Join(d, ".git", "hooks"), 0o755)
	os.Symlink("tools/scripts", filepath.Join(d, "scripts"))
	os.Symlink("../../scripts/pre-commit.sh", filepath.Join(d, ".git", "hooks", "pre-commit"))
	os.Symlink("loop", filepath.Join(d, "loop"))
	os.Symlink("nowhere/x/../y", filepath.Join(d, "dangling"))
	for _, c := range []struct {
		path   string
		links  []string
		final  string
		exists bool
	}{
		{".git/hooks/pre-commit", []string{".git/hooks/pre-commit", "scripts"}, "tools/scripts/pre-commit.sh", true},
		{"scripts/x", []string{"scripts"}, "tools/scripts/x", false},
		{"dangling", []string{"dangling"}, "nowhere/y", false},
		{"tools", nil, "tools", true},
	} {
		links, final, exists := new(pathSet).resolveLinks(filepath.Join(d, c.path), d)
		var want []string
		for _, l := range c.links {
			want = append(want, filepath.Join(d, l))
		}
		if !slices.Equal(links, want) || final != filepath.Join(d, c.final) || exists != c.exists {
			t.Errorf("%s: %q %s %v, want %q %s %v", c.path, links, final, exists, want, c.final, c.exists)
		}
	}
	if links, _, exists := new(pathSet).resolveLinks(filepath.Join(d, "loop"), d); exists || len(links) != maxLinkChain {
		t.Errorf("a loop: %d links, exists %v", len(links), exists)
	}
}
