package execpolicy

import (
	"path"
	"slices"
	"strings"
)

// neverBare are programs that run other programs or code given to them:
// an allow rule for them alone (or with a mere option) would allow anything.
// Every wrapper and shell the analysis sees through (lookupWrapper) is one
// too, and is not repeated here.
var neverBare = []string{
	"fish", "csh", "tcsh",
	"python", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "tclsh", "Rscript", "osascript", "npx", "ssh",
	"source", ".",
}

// interpreterPrefixes catch versioned interpreters (python3.12, perl5.36).
var interpreterPrefixes = []string{"python", "perl", "ruby", "node", "php", "lua", "pypy"}

// subcommandDepth holds the tools with subcommands, for which a proposed
// prefix needs the word after the program name (cargo build), and the
// nested subcommands of each, which need one more (npm run test).
var subcommandDepth = nameTable[[]string]{
	{"apt", nil}, {"apt-get", nil}, {"brew", nil}, {"bundle", nil}, {"cargo", nil}, {"composer", nil},
	{"docker", []string{"compose", "image", "container"}}, {"dotnet", nil},
	{"gh", []string{"pr", "issue", "repo"}},
	{"git", []string{"submodule", "bisect", "stash", "remote", "worktree"}}, {"go", []string{"mod", "tool"}},
	{"gradle", nil}, {"helm", nil}, {"kubectl", nil}, {"make", nil}, {"mvn", nil},
	{"npm", []string{"run", "run-script"}}, {"pip", nil}, {"pip3", nil}, {"pnpm", []string{"run"}},
	{"podman", nil}, {"poetry", nil}, {"rustup", nil}, {"systemctl", nil}, {"terraform", nil},
	{"uv", []string{"pip"}}, {"yarn", []string{"run"}},
}

// runsAnything are subcommand prefixes that run an arbitrary command given
// after them, so they are never proposed.
var runsAnything = [][]string{
	{"npm", "exec"}, {"pnpm", "exec"}, {"pnpm", "dlx"}, {"yarn", "exec"}, {"yarn", "dlx"}, {"bundle", "exec"},
	{"uv", "run"}, {"poetry", "run"}, {"kubectl", "exec"}, {"docker", "exec"}, {"git", "submodule", "foreach"},
	{"git", "bisect", "run"}, {"go", "tool"}, {"cargo", "install"},
}

// ProposedPrefix returns the prefix an "always" approval of ev would add as
// an allow rule: the shortest prefix covering the command's subcommand
// (git status, npm run test, cargo build, ls). It reports false when no
// rule should be offered: for dynamic commands, scripts of more than one
// command, forbidden or dangerous commands, and bare wrappers or
// interpreters.
func ProposedPrefix(ev Evaluation) ([]string, bool) {
	if ev.Dynamic || ev.Dangerous || ev.Decision == Forbidden || len(ev.Commands) != 1 {
		return nil, false
	}
	c := ev.Commands[0]
	if c.Dynamic || len(c.Argv) == 0 {
		return nil, false
	}
	return proposedPrefix(c.Argv)
}

func proposedPrefix(argv []string) ([]string, bool) {
	prog := argv[0]
	base := path.Base(prog)
	if _, wraps := lookupWrapper(base); wraps || prog == "" || slices.Contains(neverBare, base) {
		return nil, false
	}
	for _, p := range interpreterPrefixes {
		if rest, ok := strings.CutPrefix(base, p); ok && strings.Trim(rest, "0123456789.") == "" {
			return nil, false
		}
	}
	nested, ok := subcommandDepth.lookup(base)
	if !ok {
		return []string{prog}, true
	}
	n := 2
	if len(argv) > 1 && slices.Contains(nested, argv[1]) {
		n = 3
	}
	if base == "make" && (len(argv) < 2 || strings.HasPrefix(argv[1], "-") || strings.Contains(argv[1], "=")) {
		return []string{prog}, true
	}
	if len(argv) < n {
		return nil, false
	}
	prefix := slices.Clone(argv[:n])
	for _, w := range prefix[1:] {
		// An option before the subcommand (git -c, npm --prefix) changes
		// what runs; a path or assignment is not a subcommand.
		if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "/=") {
			return nil, false
		}
	}
	named := append([]string{base}, argv[1:]...)
	for _, bad := range runsAnything {
		if len(named) >= len(bad) && slices.Equal(named[:len(bad)], bad) {
			return nil, false
		}
	}
	return prefix, true
}
