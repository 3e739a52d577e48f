package execpolicy

import (
	"path"
	"slices"
	"strings"
)

// safeEntry is one read-only program of the known-safe list, with the
// options that would make it write or execute.
type safeEntry struct {
	// sub, when set, is the subcommand argv[1] must be (git status).
	sub string
	// denyShort are short option letters that write or execute, found in
	// any cluster (-uo).
	denyShort string
	// denyLong are long options (with or without =value) or exact words
	// (find's -exec) that write or execute. GNU getopt takes any
	// unambiguous prefix of a long option, so a prefix is denied too.
	denyLong []string
	// maxOperands bounds the operands; -1 for no bound (uniq IN OUT writes OUT).
	maxOperands int
	// check, when set, must also accept the arguments.
	check func(args []string) bool
}

// knownSafeList is the known-safe read-only list (DESIGN §3): with these,
// the untrusted approval policy runs an unmatched plain command without
// asking. awk is absent: its programs can write files and run commands.
var knownSafeList = nameTable[[]safeEntry]{
	{"basename", readsAny}, {"cat", readsAny}, {"cmp", readsAny}, {"cut", readsAny},
	{"date", []safeEntry{{denyShort: "s", denyLong: []string{"--set"}, maxOperands: -1}}},
	{"df", readsAny}, {"diff", readsAny}, {"dirname", readsAny}, {"du", readsAny}, {"echo", readsAny},
	{"false", readsAny},
	{"file", []safeEntry{{denyShort: "C", denyLong: []string{"--compile"}, maxOperands: -1}}},
	{"find", []safeEntry{{denyLong: []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}, maxOperands: -1}}},
	{"git", []safeEntry{
		{sub: "status", maxOperands: -1},
		{sub: "log", denyLong: []string{"--output", "--ext-diff"}, maxOperands: -1},
		{sub: "diff", denyLong: []string{"--output", "--ext-diff"}, maxOperands: -1},
		{sub: "show", denyLong: []string{"--output", "--ext-diff"}, maxOperands: -1},
		{sub: "branch", maxOperands: 0, check: gitBranchListing},
	}},
	{"grep", readsAny}, {"head", readsAny}, {"id", readsAny}, {"ls", readsAny}, {"md5sum", readsAny},
	{"nl", readsAny}, {"od", readsAny}, {"printf", readsAny}, {"pwd", readsAny}, {"readlink", readsAny},
	{"realpath", readsAny},
	{"rg", []safeEntry{{denyShort: "z", denyLong: []string{"--pre", "--pre-glob", "--search-zip", "--hostname-bin"}, maxOperands: -1}}},
	// sed -l takes a value, which sedReadOnly would take for the script.
	{"sed", []safeEntry{{denyShort: "ifsl", denyLong: []string{"--in-place", "--file", "--separate", "--line-length"}, maxOperands: -1, check: sedReadOnly}}},
	{"sha256sum", readsAny},
	{"sort", []safeEntry{{denyShort: "o", denyLong: []string{"--output", "--compress-program"}, maxOperands: -1}}},
	{"stat", readsAny}, {"tail", readsAny}, {"tr", readsAny}, {"true", readsAny}, {"uname", readsAny},
	{"uniq", []safeEntry{{maxOperands: 1}}},
	{"wc", readsAny}, {"which", readsAny}, {"whoami", readsAny},
}

// readsAny is the entry of a program that only reads, whatever its
// options and operands.
var readsAny = []safeEntry{{maxOperands: -1}}

// takesAnyArguments reports whether w, a command word, names a program of
// the known-safe list that only reads whatever its arguments (readsAny),
// so that arguments nobody has seen (xargs's) cannot make it run or write
// anything. A path names the program it ends in.
func takesAnyArguments(w *word) bool {
	if !w.static {
		return false
	}
	safe := lookupProgram(path.Base(w.value)).safe
	return len(safe) == 1 && safe[0].sub == "" && safe[0].denyShort == "" && safe[0].denyLong == nil &&
		safe[0].maxOperands < 0 && safe[0].check == nil
}

// knownSafeAmong reports whether argv (literal words) is allowed by one of
// entries, the known-safe list entries for its program, named exactly.
func knownSafeAmong(argv []string, entries []safeEntry) bool {
	for _, e := range entries {
		args := argv[1:]
		if e.sub != "" {
			if len(args) == 0 || args[0] != e.sub {
				continue
			}
			args = args[1:]
		}
		if e.allows(args) {
			return true
		}
	}
	return false
}

func (e safeEntry) allows(args []string) bool {
	operands := 0
	// After --, or, for a program that bounds its operands, after the
	// first operand (POSIXLY_CORRECT stops GNU getopt there), a word that
	// looks like an option may be an operand: uniq -- IN -x writes -x.
	// It is still checked as an option, which can only deny.
	endOpts := false
	for _, a := range args {
		if endOpts {
			operands++
		}
		switch {
		case a == "--":
			endOpts = true
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a, "=")
			if slices.ContainsFunc(e.denyLong, func(l string) bool { return strings.HasPrefix(l, name) }) {
				return false
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if slices.Contains(e.denyLong, a) || e.denyShort != "" && strings.ContainsAny(a[1:], e.denyShort) {
				return false
			}
		case !endOpts:
			operands++
			endOpts = e.maxOperands >= 0
		}
	}
	if e.maxOperands >= 0 && operands > e.maxOperands {
		return false
	}
	return e.check == nil || e.check(args)
}

// gitBranchListing accepts only the listing forms of git branch.
func gitBranchListing(args []string) bool {
	for _, a := range args {
		if !slices.Contains([]string{"-a", "-r", "-v", "-vv", "--all", "--remotes", "--list", "--show-current", "--verbose", "--no-color"}, a) {
			return false
		}
	}
	return true
}

// sedReadOnly accepts sed scripts made only of printing, deleting and
// substituting commands without the w or e flags. The first operand is the
// script unless -e gives one.
func sedReadOnly(args []string) bool {
	var scripts []string
	explicit := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-e" || a == "--expression":
			if i+1 >= len(args) {
				return false
			}
			i++
			scripts = append(scripts, args[i])
			explicit = true
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
			explicit = true
		case strings.HasPrefix(a, "-") && strings.Contains(a, "e"):
			return false // -ne'script' and friends: not worth parsing
		case strings.HasPrefix(a, "-"):
		case !explicit && len(scripts) == 0:
			scripts = append(scripts, a)
		}
	}
	for _, s := range scripts {
		for _, cmd := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
			if !sedCommandReadOnly(strings.TrimSpace(cmd)) {
				return false
			}
		}
	}
	return true
}

// sedCommandReadOnly accepts [ADDR]p|d|q|=|n|N|P|D|G|g|h|H|x|l and
// [ADDR]s/RE/REPL/FLAGS with FLAGS in gpiIM and digits.
func sedCommandReadOnly(c string) bool {
	c = strings.TrimLeft(c, "0123456789$,! ")
	if strings.HasPrefix(c, "/") {
		end := strings.Index(c[1:], "/")
		if end < 0 {
			return false
		}
		c = strings.TrimLeft(c[end+2:], "0123456789$,! ")
	}
	if c == "" || len(c) == 1 && strings.Contains("pdq=nNPDGghHxl", c) {
		return true
	}
	if len(c) < 2 || c[0] != 's' {
		return false
	}
	delim := c[1]
	if delim == '\\' || delim == '\n' {
		return false
	}
	parts, n := 0, 2
	for ; n < len(c) && parts < 2; n++ {
		switch c[n] {
		case '\\':
			n++
		case delim:
			parts++
		}
	}
	if parts < 2 {
		return false
	}
	return strings.Trim(c[n:], "gpiIM0123456789") == ""
}
