package sandbox

import "path/filepath"

// AgentConfig returns the paths in workspace through which the host's
// agents, editors and shells would run a program the command left there:
// agent and editor settings at the workspace's root and, when the
// workspace holds the home directory home, at home's too, with home's
// shell start-up files and git's global config, ~/.gitconfig and
// git/config in configHome ($XDG_CONFIG_HOME, else ~/.config). home and
// configHome may be "". Paths are listed whether they exist or not: the
// caller protects those that do and watches them all (Profile.Watch).
func AgentConfig(workspace, home, configHome string) []string {
	// Claude Code's settings (hooks) and MCP servers, Codex's and Gemini
	// CLI's configuration, Cursor's MCP servers, VS Code's tasks and
	// settings that name executables, JetBrains' run configurations.
	// .gitmodules is not among them: git ignores a command ("update =
	// !cmd") there since 2.20, and a read-only one breaks every checkout
	// of a branch that changes it.
	agents := []string{".claude", ".claude.json", ".mcp.json", ".codex", ".gemini", ".cursor", ".vscode", ".idea"}
	// What shells and git read at every start.
	shells := []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
		".zshenv", ".zshrc", ".zprofile", ".zlogin", ".gitconfig"}
	var out []string
	seen := map[string]bool{}
	add := func(base string, names []string) {
		for _, n := range names {
			if p := filepath.Join(base, n); !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	add(workspace, agents)
	ws := []string{workspace}
	if home != "" && Under(home, ws) {
		add(home, agents)
		add(home, shells)
	}
	if home != "" && configHome == "" {
		configHome = filepath.Join(home, ".config")
	}
	if configHome != "" && Under(configHome, ws) {
		add(configHome, []string{filepath.Join("git", "config")})
	}
	return out
}
