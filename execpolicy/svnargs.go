package execpolicy

import (
	"slices"
	"strings"
)

// svn runs the programs its options name: --editor-cmd, --diff-cmd and
// --diff3-cmd, and --config-option FILE:SECTION:OPTION=VALUE settings
// whose VALUE is a command, a tunnel's ([tunnels] NAME = [$VAR] CMD) and
// the helpers' editor-cmd, diff-cmd, diff3-cmd and merge-tool-cmd;
// --config-dir picks a configuration that may set any of them. svn takes
// long options only in full; any prefix counts here (longPrefixOf).
var svnRuns = []string{"--editor-cmd", "--diff-cmd", "--diff3-cmd", "--config-option", "--config-dir"}

// svnHelpers are the options of the [helpers] section whose value is a
// command.
var svnHelpers = []string{"editor-cmd", "diff-cmd", "diff3-cmd", "merge-tool-cmd"}

// svnArgs judges svn's arguments (execOptions.script): each option of
// svnRuns is unanalysable, and the command it gives is searched for
// forbidden commands: the value of --editor-cmd and the like, the part of
// a --config-option setting after its "=" (svnConfigCommand), none for
// --config-dir, a directory. "svn propedit --editor-cmd ./x", "svn diff
// --diff-cmd ./x", --config-option config:tunnels:foo=./x and
// config:helpers:diff-cmd ran x (svn 1.14.2); "svn --config-option
// 'config:tunnels:ssh=rm x' ls svn+ssh://h/r" was judged prompt, not
// forbidden, while the whole setting was read as the command.
func svnArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static || !strings.HasPrefix(w.value, "--") {
			continue // dynamic: the command is not plain already
		}
		name, val, hasEq := strings.Cut(w.value, "=")
		opt := longPrefixOf(name, svnRuns)
		if opt == "" {
			continue
		}
		d = Max(d, a.unanalysable(ws[0].value+" "+opt+" runs a command"))
		v := longValue(ws, &i, val, hasEq)
		if v == nil || !v.static || opt == "--config-dir" {
			continue
		}
		cmd, ok := v.value, true
		if opt == "--config-option" {
			cmd, ok = svnConfigCommand(v.value)
		}
		if ok {
			d = Max(d, a.forbiddenIn(cmd, depth))
		}
	}
	return d
}

// svnConfigCommand returns the command a --config-option setting gives,
// split as svn_cmdline__parse_config_option splits it: FILE up to the
// first ":", SECTION up to the next, OPTION up to the "=" after that, and
// VALUE the rest. Sections and options are compared in any case, as svn
// reads [Tunnels] as [tunnels]. A setting svn refuses, or that names no
// command, gives none; every --config-option is unanalysable anyway.
func svnConfigCommand(setting string) (string, bool) {
	_, rest, ok := strings.Cut(setting, ":")
	if !ok {
		return "", false
	}
	section, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return "", false
	}
	option, value, ok := strings.Cut(rest, "=")
	if !ok {
		return "", false
	}
	section, option = strings.ToLower(strings.TrimSpace(section)), strings.ToLower(strings.TrimSpace(option))
	switch {
	case section == "tunnels":
		return svnTunnelCommand(value), true
	case section == "helpers" && slices.Contains(svnHelpers, option):
		return value, true
	}
	return "", false
}

// svnTunnelCommand returns the command of a tunnel definition, "[$VAR]
// CMD": svn runs $VAR's value when it is set, which is unknown here and
// unanalysable already, and CMD otherwise.
func svnTunnelCommand(def string) string {
	if rest, ok := strings.CutPrefix(def, "$"); ok {
		_, cmd, _ := strings.Cut(rest, " ")
		return cmd
	}
	return def
}
