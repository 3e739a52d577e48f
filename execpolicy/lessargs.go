package execpolicy

import (
	"slices"
	"strings"
)

// less's options that give it commands: an initial command (+CMD, ++CMD),
// which is any of its keystrokes, "!" and "|" among them, which run a
// shell; a search pattern (-p, --pattern), typed as the keys of
// +/PATTERN; and a lesskey file or text (-k, --lesskey-file, --lesskey-src,
// --lesskey-content), whose #env section may set LESSOPEN, a command less
// runs on every file it opens. less takes a long option by any prefix and
// in either case (--LESSKEY-S).
var lessKeyLong = []string{"--lesskey-file", "--lesskey-src", "--lesskey-content"}

// lessOptions are less's short options that take a value, attached or in
// the next word (in a cluster, the rest of the word is that value), and
// the long ones above with -p's, "--pattern=PAT" being "-pPAT".
var lessOptions = getopt{valued: "bDhjkoOPtTxyz\"#p", long: []string{"--pattern", "--lesskey-file", "--lesskey-src", "--lesskey-content"}, fold: true}

// lessArgs judges less's arguments (execOptions.script): an initial
// command other than a plain move or search (lessPlainCommand), a -p
// pattern that would end its search, and any lesskey option, are
// unanalysable; what follows a "!" or "|" in an initial command is
// searched for forbidden commands. "less $'+!touch x\n' f", "less -p
// $'x\n!touch x\n' f" and "less --lesskey-src=k f" (k setting LESSOPEN)
// ran touch (less 590) while judged allow by an allow rule for less.
func lessArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for opt, v := range lessOptions.options(ws) {
		switch {
		case opt == "" && strings.HasPrefix(v.value, "+"):
			d = Max(d, lessCommand(a, prog+" "+v.value[:min(len(v.value), 2)], v.value, depth))
		case opt == "-k" || slices.Contains(lessKeyLong, opt):
			d = Max(d, a.unanalysable(prog+" "+opt+" may set the command it runs on each file (LESSOPEN)"))
		case opt == "-p" || opt == "--pattern":
			d = Max(d, lessPattern(a, prog+" "+opt, v, depth))
		}
	}
	return d
}

// lessCommand judges v, an initial command (+CMD, ++CMD) given by what:
// unanalysable unless plain (lessPlainCommand), with what follows a "!"
// or "|" in it searched for forbidden commands.
func lessCommand(a *analysis, what, v string, depth int) Decision {
	if lessPlainCommand(v) {
		return 0
	}
	d := a.unanalysable(what + " runs one of its commands")
	for line := range linesAfter(v, "!") {
		d = Max(d, a.forbiddenIn(line, depth))
	}
	// "|" takes a mark letter before its command.
	for line := range linesAfter(v, "|") {
		d = Max(d, a.forbiddenIn(line, depth))
		if line != "" {
			d = Max(d, a.forbiddenIn(line[1:], depth))
		}
	}
	return d
}

// lessPattern judges the value of -p (--pattern), given by what: less
// types "/" and the pattern as keys before the first screen, as for
// +/PATTERN, so a newline in it ends the search and what follows runs as
// commands. A missing value searches for nothing.
func lessPattern(a *analysis, what string, v *word, depth int) Decision {
	if v == nil || !v.static {
		return 0 // none, or dynamic: the command is not plain already
	}
	return lessCommand(a, what, "+/"+v.value, depth)
}

// lessPlainCommand reports whether the initial command v (+CMD or ++CMD)
// only moves or searches: a line number, percentage or end (+G, +50%),
// following the file (+F), or a search (+/PATTERN, +?PATTERN) with no
// control character, which would end the pattern and start another
// command.
func lessPlainCommand(v string) bool {
	cmd := strings.TrimPrefix(strings.TrimPrefix(v, "+"), "+")
	n := 0
	for n < len(cmd) && cmd[n] >= '0' && cmd[n] <= '9' {
		n++
	}
	rest := cmd[n:]
	switch {
	case rest == "":
		return true
	case rest[0] == '/' || rest[0] == '?':
		for i := 1; i < len(rest); i++ {
			if rest[i] < 0x20 || rest[i] == 0x7f {
				return false
			}
		}
		return true
	case len(rest) == 1:
		return strings.IndexByte("gGpP%F", rest[0]) >= 0
	}
	return false
}
