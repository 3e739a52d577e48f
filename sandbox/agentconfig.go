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
	// What shells and git read at every start. Debian's and Ubuntu's
	// /etc/skel/.bashrc source ~/.bash_aliases, Fedora's every file of
	// ~/.bashrc.d: as good as .bashrc on those hosts.
	shells := []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
		".bash_aliases", ".bashrc.d", ".zshenv", ".zshrc", ".zprofile", ".zlogin", ".gitconfig"}
	var s pathSet
	add := func(base string, names ...string) {
		for _, n := range names {
			s.add(filepath.Join(base, n))
		}
	}
	add(workspace, agents...)
	homeHeld, cfg := homeReach(workspace, home, configHome)
	if homeHeld {
		add(home, agents...)
		add(home, shells...)
	}
	if cfg != "" {
		// fish runs config.fish and every file of conf.d at every start.
		add(cfg, filepath.Join("git", "config"), filepath.Join("fish", "config.fish"), filepath.Join("fish", "conf.d"))
	}
	return s.list
}

// homeReach says whether workspace holds home, and returns configHome
// (home's .config when "") when workspace holds it, else "": the settings
// of theirs that are the command's to write.
func homeReach(workspace, home, configHome string) (homeHeld bool, cfg string) {
	ws := []string{workspace}
	homeHeld = home != "" && Under(home, ws)
	if home != "" && configHome == "" {
		configHome = filepath.Join(home, ".config")
	}
	if configHome != "" && Under(configHome, ws) {
		cfg = configHome
	}
	return homeHeld, cfg
}

// AgentConfigReach returns the paths of AgentConfig and what the host
// reads or runs through them in workspace, which must be resolved: the
// targets of core.hooksPath and include.path (includeIf.*.path) of the
// home's git config files when the workspace holds them, "~/" taken from
// home, with what the included files name in turn; and every link on the
// way to any of these, or an entry of one of their directories, with
// where it leads (pathSet.follow: a .claude linked to cfg/claude, with
// cfg itself a link). Without these, a command could have the host's git
// run a hook of its own from ~/.githooks, or replace a link so that the
// host reads its settings. Targets are listed whether they exist or not:
// missing ones are watched, not held (AgentConfig). Reading stays within
// git's and the link bounds (gitMaxModules config files, maxLinks links).
func AgentConfigReach(workspace, home, configHome string) []string {
	g := &gitPaths{missing: true}
	g.add(AgentConfig(workspace, home, configHome)...)
	var configs []string
	homeHeld, cfg := homeReach(workspace, home, configHome)
	if homeHeld {
		g.home = home
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if cfg != "" {
		configs = append(configs, filepath.Join(cfg, "git", "config"))
	}
	for _, c := range configs {
		// A relative core.hooksPath in a global config is taken from
		// wherever git runs: no path to name.
		g.configTargets(c, "", 0)
	}
	g.follow(workspace, true)
	return g.list
}
