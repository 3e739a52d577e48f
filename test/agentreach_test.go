package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkAs makes the link name -> target, owned by the fixture's user.
func linkAs(t *testing.T, f fixture, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
	if f.cred != nil {
		os.Lchown(name, int(f.cred.Uid), int(f.cred.Gid))
	}
}

// TestAgentConfigHomeGitTargets: with the workspace at the home, the
// hooks directory ~/.gitconfig names is read-only and a missing include
// it names, once made, is reported: either would have the host's git run
// the command's program.
func TestAgentConfigHomeGitTargets(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			mkdirAs(t, f, filepath.Join(f.ws, ".githooks"))
			writeAs(t, f, filepath.Join(f.ws, ".gitconfig"), "[core]\n\thooksPath = ~/.githooks\n[include]\n\tpath = ~/.gitconfig.local\n")
			f.env = append(f.env, "HOME="+f.ws)
			out, code := f.sandboxedJSON(t, "workspace-write", "sh", "-c",
				`printf '#!/bin/sh\necho PWNED\n' > ~/.githooks/pre-commit; printf '[core]\n\tfsmonitor = "echo PWNED; false"\n' > ~/.gitconfig.local; true`)
			expectTampered(t, out, code, filepath.Join(f.ws, ".gitconfig.local"))
			if _, err := os.Lstat(filepath.Join(f.ws, ".githooks", "pre-commit")); err == nil {
				t.Errorf("the command wrote a hook into ~/.githooks:\n%s", out.stderr)
			}
		})
	}
}

// TestAgentConfigLinksOnTheWay: a link on the way to a setting (cfg in
// .claude -> cfg/claude) or to a linked hook (scripts in
// scripts/pre-commit.sh) can be neither removed nor replaced; a link in a
// settings directory cannot be written through; the target of a dangling
// one, once made, is reported.
func TestAgentConfigLinksOnTheWay(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			ws := f.ws
			for _, d := range []string{"shared", "shared/claude", "tools", "tools/scripts", "config", "inner", "inner/claude"} {
				mkdirAs(t, f, filepath.Join(ws, d))
			}
			writeAs(t, f, filepath.Join(ws, "shared/claude/settings.json"), "{}\n")
			writeAs(t, f, filepath.Join(ws, "tools/scripts/pre-commit.sh"), "#!/bin/sh\nexit 0\n")
			writeAs(t, f, filepath.Join(ws, "config/codex.toml"), "# mine\n")
			linkAs(t, f, "shared", filepath.Join(ws, "cfg"))
			linkAs(t, f, "cfg/claude", filepath.Join(ws, ".claude"))
			linkAs(t, f, "tools/scripts", filepath.Join(ws, "scripts"))
			linkAs(t, f, "../../scripts/pre-commit.sh", filepath.Join(ws, ".git/hooks/pre-commit"))
			mkdirAs(t, f, filepath.Join(ws, ".codex"))
			linkAs(t, f, "../config/codex.toml", filepath.Join(ws, ".codex/config.toml"))
			for _, attack := range []string{
				`rm cfg && mkdir -p cfg/claude && echo '{"hooks":{}}' > cfg/claude/settings.json`,
				`mv cfg cfg.old && mkdir -p cfg/claude && echo '{"hooks":{}}' > cfg/claude/settings.json`,
				`rm scripts && mkdir scripts && printf '#!/bin/sh\necho PWNED\n' > scripts/pre-commit.sh`,
				`echo 'notify = ["sh","-c","echo PWNED"]' > .codex/config.toml`,
			} {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", attack)
				for _, l := range []string{"cfg", "scripts", ".codex/config.toml"} {
					if fi, err := os.Lstat(filepath.Join(ws, l)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
						t.Fatalf("%s: exit %d, %s is no longer the link:\n%s", attack, code, l, out)
					}
				}
				if readFile(t, filepath.Join(ws, "config/codex.toml")) != "# mine\n" {
					t.Fatalf("%s: wrote through the link in .codex:\n%s", attack, out)
				}
			}
			// Dangling links: where they lead, once made, is reported.
			linkAs(t, f, "config/mcp.local.json", filepath.Join(ws, ".mcp.json"))
			linkAs(t, f, ".shared-gemini", filepath.Join(ws, ".gemini"))
			out, code := f.sandboxedJSON(t, "workspace-write", "sh", "-c",
				`echo '{"mcpServers":{"x":{"command":"id"}}}' > config/mcp.local.json && mkdir .shared-gemini && echo '{}' > .shared-gemini/settings.json`)
			expectTampered(t, out, code, filepath.Join(ws, "config/mcp.local.json"), filepath.Join(ws, ".shared-gemini"))
			if !strings.Contains(out.stderr, "agents, editors or shells") {
				t.Errorf("the warning does not say what reads them:\n%s", out.stderr)
			}
			out2, code := f.sandboxed(t, "workspace-write", "sh", "-c", "echo x > a && git add a && git commit -q -m a && echo committed")
			if code != 0 || !strings.Contains(out2, "committed") {
				t.Errorf("control: a commit running the linked hook: exit %d:\n%s", code, out2)
			}
		})
	}
}
