package execpolicy

import (
	"path"
	"slices"
	"strings"
)

// dangerEntry is one entry of the dangerous-command floor: a command that
// raises an otherwise allowed or unmatched command to prompt.
type dangerEntry struct {
	// name is shown in the reason ("rm -rf outside temp").
	name string
	// programs are the basenames the entry applies to; a trailing '*'
	// matches any suffix (mkfs*).
	programs []string
	// match reports whether the command's arguments (ws[1:]) are dangerous.
	// nil means the program alone is.
	match func(args []word) bool
}

// dangerFloor is the built-in dangerous-command floor (DESIGN §3).
var dangerFloor = []dangerEntry{
	{name: "recursive forced rm outside temp", programs: []string{"rm"}, match: rmRecursiveForce},
	{name: "filesystem creation or wipe", programs: []string{"mkfs*", "mke2fs", "mkswap", "wipefs"}},
	{name: "dd to a device", programs: []string{"dd"}, match: ddToDevice},
	{name: "system shutdown or reboot", programs: []string{"shutdown", "reboot", "halt", "poweroff"}},
	{name: "init runlevel 0 or 6", programs: []string{"init", "telinit"}, match: initHalt},
	{name: "systemctl power action", programs: []string{"systemctl"}, match: systemctlPower},
	{name: "git force push", programs: []string{"git"}, match: gitForcePush},
	{name: "git reset --hard", programs: []string{"git"}, match: gitResetHard},
	{name: "kill every process", programs: []string{"kill"}, match: killAll},
	{name: "recursive chmod/chown of a system root", programs: []string{"chmod", "chown", "chgrp"}, match: recursiveOnRoot},
}

// dangerIndex lists, for each program named exactly by a dangerFloor
// entry, the entries (by index, in floor order) that apply to it, and
// dangerPatterns the entries with a wildcard program. They spare every
// command a scan of the whole floor, and are written out rather than
// derived from dangerFloor so that no gatedexec start builds them;
// TestDangerIndex checks them against the floor, and prints what they
// should be after an edit of it.
var (
	dangerIndex = nameTable[[]int]{
		{"chgrp", []int{9}}, {"chmod", []int{9}}, {"chown", []int{9}}, {"dd", []int{2}}, {"git", []int{6, 7}},
		{"halt", []int{3}}, {"init", []int{4}}, {"kill", []int{8}}, {"mke2fs", []int{1}}, {"mkswap", []int{1}},
		{"poweroff", []int{3}}, {"reboot", []int{3}}, {"rm", []int{0}}, {"shutdown", []int{3}}, {"systemctl", []int{5}},
		{"telinit", []int{4}}, {"wipefs", []int{1}},
	}
	dangerPatterns = []int{1}
)

// dangerousAmong returns the name of the floor entry the static ws hits,
// or "": ws's program has basename prog and is named exactly by the floor
// entries candidates (its row of dangerIndex).
func dangerousAmong(ws []word, prog string, candidates []int) string {
	for _, i := range dangerPatterns {
		if programMatches(dangerFloor[i].programs, prog) {
			// Rare (mkfs.ext4): keep floor order with a full scan.
			candidates = nil
			for j := range dangerFloor {
				if programMatches(dangerFloor[j].programs, prog) {
					candidates = append(candidates, j)
				}
			}
			break
		}
	}
	for _, i := range candidates {
		if e := &dangerFloor[i]; e.match == nil || e.match(ws[1:]) {
			return e.name
		}
	}
	return ""
}

func programMatches(pats []string, prog string) bool {
	for _, p := range pats {
		if p == prog || strings.HasSuffix(p, "*") && strings.HasPrefix(prog, p[:len(p)-1]) {
			return true
		}
	}
	return false
}

// splitOpts separates the options of args from the operands, stopping at
// "--". A dynamic word counts as an operand.
func splitOpts(args []word) (opts []string, operands []word) {
	for i, a := range args {
		if a.static && a.value == "--" {
			return opts, append(operands, args[i+1:]...)
		}
		if a.static && len(a.value) > 1 && a.value[0] == '-' {
			opts = append(opts, a.value)
			continue
		}
		operands = append(operands, a)
	}
	return opts, operands
}

// hasOpt reports whether opts hold the short letter (in any cluster) or one
// of the long names (with or without =value), or a prefix of one: GNU
// getopt and git take a unique prefix (rm --rec --for, git reset --har).
func hasOpt(opts []string, short string, long ...string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "--") {
			name, _, _ := strings.Cut(o, "=")
			if len(name) > 2 && slices.ContainsFunc(long, func(l string) bool { return strings.HasPrefix(l, name) }) {
				return true
			}
			continue
		}
		if short != "" && strings.ContainsAny(o[1:], short) {
			return true
		}
	}
	return false
}

func rmRecursiveForce(args []word) bool {
	opts, operands := splitOpts(args)
	if !hasOpt(opts, "rR", "--recursive") || !hasOpt(opts, "f", "--force") {
		return false
	}
	for _, o := range operands {
		if !o.literal || !underTemp(o.value) {
			return true
		}
	}
	return false
}

// underTemp reports whether p is strictly inside /tmp or /var/tmp.
func underTemp(p string) bool {
	if !path.IsAbs(p) {
		return false
	}
	c := path.Clean(p)
	return strings.HasPrefix(c, "/tmp/") || strings.HasPrefix(c, "/var/tmp/")
}

// harmlessDevices are the device files dd may write without harm.
var harmlessDevices = []string{"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr"}

func ddToDevice(args []word) bool {
	for _, a := range args {
		of, ok := strings.CutPrefix(a.text(), "of=")
		if !ok {
			continue
		}
		if !a.static {
			return true
		}
		c := path.Clean(of)
		if strings.HasPrefix(c, "/dev/") && !slices.Contains(harmlessDevices, c) && !strings.HasPrefix(c, "/dev/fd/") {
			return true
		}
	}
	return false
}

func initHalt(args []word) bool {
	return len(args) > 0 && (args[0].text() == "0" || args[0].text() == "6")
}

// powerActions are systemctl's verbs that stop or restart the system, and
// the names of their targets.
var powerActions = []string{"poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot"}

func systemctlPower(args []word) bool {
	_, operands := splitOpts(args)
	if len(operands) == 0 {
		return false
	}
	if slices.Contains(powerActions, operands[0].text()) {
		return true
	}
	// systemctl start reboot.target does what systemctl reboot does.
	switch operands[0].text() {
	case "start", "isolate", "restart", "reload-or-restart", "try-restart":
	default:
		return false
	}
	for _, o := range operands[1:] {
		unit := strings.TrimSuffix(o.text(), ".target")
		if !o.static || slices.Contains(powerActions, unit) || unit == "shutdown" || unit == "ctrl-alt-del" {
			return true
		}
	}
	return false
}

// gitGlobalValue are git's global options whose value is the next word
// (git.c's handle_options). Both the floor and programExecOptions skip
// them to reach the subcommand: one missing lets its value pass for the
// subcommand and hides the real one.
var gitGlobalValue = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--shallow-file", "--attr-source"}

// gitSubcommand returns git's subcommand and its arguments, skipping the
// global options.
func gitSubcommand(args []word) (string, []word) {
	for i := 0; i < len(args); i++ {
		v := args[i].text()
		if !strings.HasPrefix(v, "-") {
			return v, args[i+1:]
		}
		if slices.Contains(gitGlobalValue, v) {
			i++
		}
	}
	return "", nil
}

func gitForcePush(args []word) bool {
	sub, rest := gitSubcommand(args)
	if sub != "push" {
		return false
	}
	opts, operands := splitOpts(rest)
	if hasOpt(opts, "f", "--force", "--force-with-lease", "--force-if-includes", "--mirror") {
		return true
	}
	for _, o := range operands {
		if strings.HasPrefix(o.text(), "+") || strings.HasPrefix(o.text(), ":") {
			return true
		}
	}
	return false
}

func gitResetHard(args []word) bool {
	sub, rest := gitSubcommand(args)
	if sub != "reset" {
		return false
	}
	opts, _ := splitOpts(rest)
	return hasOpt(opts, "", "--hard", "--merge", "--keep")
}

func killAll(args []word) bool {
	i := 0
	if i < len(args) {
		switch v := args[i].text(); {
		case v == "-s" || v == "-n" || v == "--signal":
			i += 2
		case strings.HasPrefix(v, "-") && v != "--":
			i++ // -9, -KILL, -SIGKILL
		}
	}
	for _, a := range args[min(i, len(args)):] {
		if a.text() == "-1" {
			return true
		}
	}
	return false
}

// systemRoots are the trees a recursive chmod/chown must not touch.
var systemRoots = []string{"/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/var", "/home", "/boot", "/root", "/opt", "/dev", "/proc", "/sys"}

func recursiveOnRoot(args []word) bool {
	opts, operands := splitOpts(args)
	if !hasOpt(opts, "R", "--recursive") {
		return false
	}
	for _, o := range operands {
		if !o.static {
			return true
		}
		v := o.value
		if v == "~" || strings.HasPrefix(v, "~/") && path.Clean(v[1:]) == "/" {
			return true
		}
		for _, suffix := range []string{"/*", "/."} {
			if t, ok := strings.CutSuffix(v, suffix); ok && path.IsAbs(v) {
				v = t + "/"
			}
		}
		if path.IsAbs(v) && slices.Contains(systemRoots, path.Clean(v)) {
			return true
		}
	}
	return false
}
