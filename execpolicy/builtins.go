package execpolicy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// builtinCheck judges the arguments of a bash builtin that the shell
// evaluates itself, or that change what later command words run: an allow
// rule for the builtin's name says nothing about those.
type builtinCheck func(a *analysis, ws []word, depth int) Decision

// shellBuiltins holds each builtin's check. Builtins are found by their
// bare name only; /usr/bin/printf is another program.
var shellBuiltins = nameTable[builtinCheck]{
	{".", sourceFile}, {"[", testNames}, {"alias", aliasArgs}, {"compgen", compgenArgs}, {"declare", declarationArgs},
	{"enable", enableArgs}, {"export", declarationArgs}, {"fc", fcArgs}, {"getopts", getoptsArgs}, {"hash", hashArgs},
	{"local", declarationArgs}, {"mapfile", mapfileArgs}, {"printf", printfArgs}, {"read", readArgs},
	{"readarray", mapfileArgs}, {"readonly", declarationArgs}, {"set", setArgs}, {"shopt", shoptArgs},
	{"source", sourceFile}, {"test", testNames}, {"typeset", declarationArgs}, {"unset", unsetArgs}, {"wait", waitArgs},
}

// declarationArgs judges a declaration builtin reached as a command word
// (command export PATH=/x): the parser makes a declaration clause only of
// one written first, which is unanalysable, and a rule that allows the
// builtin's name must not make the same declaration allowed behind a
// wrapper. Its names are recorded as the clause's are.
func declarationArgs(a *analysis, ws []word, depth int) Decision {
	a.declaration(ws)
	return a.unanalysable("declaration " + QuoteArgv([]string{ws[0].value}))
}

// printfArgs checks the variables printf -v NAME or -vNAME sets. It is
// the only option printf takes, and may be given more than once: the last
// one wins, so every one counts.
func printfArgs(a *analysis, ws []word, depth int) Decision {
	names, _, _ := builtinOperands(ws, "v", "v", "")
	return a.assigned(ws[0].value, names, depth)
}

// readArgs checks the array (-a) and the variables read sets.
func readArgs(a *analysis, ws []word, depth int) Decision {
	arrays, names, _ := builtinOperands(ws, "adinNptu", "a", "")
	return Max(a.assigned(ws[0].value, arrays, depth), a.assigned(ws[0].value, names, depth))
}

// getoptsArgs checks the variable getopts OPTSTRING NAME sets.
func getoptsArgs(a *analysis, ws []word, depth int) Decision {
	return a.assigned(ws[0].value, ws[min(2, len(ws)):min(3, len(ws))], depth)
}

// waitArgs checks the variable wait -p sets.
func waitArgs(a *analysis, ws []word, depth int) Decision {
	names, _, _ := builtinOperands(ws, "p", "p", "")
	return a.assigned(ws[0].value, names, depth)
}

// unsetArgs checks the variables unset unsets.
func unsetArgs(a *analysis, ws []word, depth int) Decision {
	_, names, _ := builtinOperands(ws, "", "", "")
	return a.assigned(ws[0].value, names, depth)
}

// fcArgs leaves fc unanalysable but for its listing (fc -l).
func fcArgs(a *analysis, ws []word, depth int) Decision {
	if len(ws) > 1 && ws[1].static && ws[1].value == "-l" {
		return 0
	}
	return a.unanalysable("fc runs commands from the history or an editor")
}

// setArgs judges the shell options set turns on that make the shell run
// later lines otherwise than they read.
func setArgs(a *analysis, ws []word, depth int) Decision {
	for i := 1; i < len(ws); i++ {
		v := ws[i].value
		if !ws[i].static || v == "--" || v == "-" || len(v) < 2 || v[0] != '-' && v[0] != '+' {
			break // the rest are the positional parameters
		}
		// Every o of a cluster takes the next word as an option name,
		// wherever it is in the cluster (set -eo keyword).
		names := strings.Count(v, "o")
		if v[0] == '+' {
			i += names
			continue
		}
		if strings.IndexByte(v, 'k') >= 0 {
			return a.unanalysable("set " + keywordOption)
		}
		if strings.IndexByte(v, 'H') >= 0 {
			return a.unanalysable("set -H: " + histExpandOption)
		}
		for ; names > 0 && i+1 < len(ws); names-- {
			i++
			if d := a.rewritingOption("set -o", ws[i].value); d != 0 {
				return d
			}
		}
	}
	return 0
}

// shoptArgs judges the options shopt -o turns on, as setArgs does.
func shoptArgs(a *analysis, ws []word, depth int) Decision {
	if !hasOptLetter(ws[1:], 'o') {
		return 0
	}
	for _, w := range ws[1:] {
		if d := a.rewritingOption("shopt -o", w.value); d != 0 {
			return d
		}
	}
	return 0
}

// compgenArgs judges what compgen runs: -C COMMAND runs COMMAND to
// generate the completions; -W WORDLIST expands each word of WORDLIST,
// running its substitutions.
func compgenArgs(a *analysis, ws []word, depth int) Decision {
	wordlists, _, commands := builtinOperands(ws, "ACFGPSWXo", "W", "C")
	d := Decision(0)
	for _, w := range wordlists {
		if w.static && !strings.ContainsAny(w.value, "$`<>") {
			continue // nothing there to expand but globs and tildes
		}
		d = Max(d, a.unanalysable("compgen -W expands "+w.src))
		if w.static {
			d = Max(d, a.forbiddenIn(": "+w.value, depth))
		}
	}
	for _, c := range commands {
		d = Max(d, a.unanalysable("compgen -C runs "+c.src))
		if c.static {
			d = Max(d, a.forbiddenIn(c.value, depth))
		}
	}
	return d
}

// hashArgs leaves hash -p unanalysable.
func hashArgs(a *analysis, ws []word, depth int) Decision {
	if hasOptLetter(ws[1:], 'p') {
		return a.unanalysable("hash -p sets the program a later command word runs")
	}
	return 0
}

// enableArgs leaves enable -f unanalysable.
func enableArgs(a *analysis, ws []word, depth int) Decision {
	if hasOptLetter(ws[1:], 'f') {
		return a.unanalysable("enable -f loads a builtin from a shared object")
	}
	return 0
}

// aliasArgs leaves an alias definition unanalysable and searches its
// value for forbidden commands.
func aliasArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	for _, w := range ws[1:] {
		name, value, ok := strings.Cut(w.value, "=")
		if !w.static || !ok || name == "" {
			continue
		}
		d = Max(d, a.unanalysable("alias "+name+" changes what a later command word runs"))
		d = Max(d, a.forbiddenIn(value, depth))
	}
	return d
}

// histExpandOption is why enabling bash's history expansion leaves the
// script unanalysable: even in a script, bash then expands !! and the like
// in the lines after it before it parses them, also inside double quotes,
// so that echo "!!:1" may run what an earlier line only quoted.
const histExpandOption = "history expansion rewrites the lines after it"

// rewritingOption judges name, a shell option that what (set -o, shopt -o)
// turns on: one that makes the shell run later lines otherwise than they
// read leaves the script unanalysable.
func (a *analysis) rewritingOption(what, name string) Decision {
	switch name {
	case "keyword":
		return a.unanalysable(what + " keyword: " + keywordOption)
	case "histexpand", "history":
		return a.unanalysable(what + " " + name + ": " + histExpandOption)
	}
	return 0
}

// sourceFile leaves a script that source or . runs unanalysable, as a
// shell's script file is, whatever rule allows the builtin.
func sourceFile(a *analysis, ws []word, depth int) Decision {
	file := ""
	if len(ws) > 1 {
		file = " " + ws[1].src
	}
	return a.unanalysable(ws[0].value + ": runs the script file" + file)
}

// mapfileArgs checks mapfile's (readarray's) array name and its -C
// callback, a command string the shell evaluates for every few lines.
func mapfileArgs(a *analysis, ws []word, depth int) Decision {
	_, operands, callbacks := builtinOperands(ws, "dnOsuCc", "", "C")
	d := a.assigned(ws[0].value, operands[:min(1, len(operands))], depth)
	for _, cb := range callbacks {
		d = Max(d, a.unanalysable(ws[0].value+" -C runs the callback "+cb.src))
		if cb.static {
			d = Max(d, a.forbiddenIn(cb.value, depth))
		}
	}
	return d
}

// builtinOperands splits the arguments of a builtin parsed by bash's
// internal getopt: valued are the option letters taking a value (attached
// or in the next word). It returns the values of the options in named, the
// operands, and the values of the options in script. A dynamic option
// word ends the options.
func builtinOperands(ws []word, valued, named, script string) (names, operands, scripts []word) {
	i := 1
	for ; i < len(ws); i++ {
		v := ws[i].value
		if !ws[i].static || len(v) < 2 || v[0] != '-' {
			break
		}
		if v == "--" {
			i++
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(valued, c) < 0 {
				continue
			}
			val := word{value: v[j+1:], src: ws[i].src, static: true}
			if j+1 == len(v) {
				if i+1 >= len(ws) {
					break
				}
				i++
				val = ws[i]
			}
			if strings.IndexByte(named, c) >= 0 {
				names = append(names, val)
			}
			if strings.IndexByte(script, c) >= 0 {
				scripts = append(scripts, val)
			}
			break
		}
	}
	return names, ws[min(i, len(ws)):], scripts
}

// testNames checks the operand of each -v of test and [.
func testNames(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	for i := 1; i+1 < len(ws); i++ {
		if ws[i].static && ws[i].value == "-v" {
			d = Max(d, a.subscripts(ws[0].value, ws[i+1:i+2], depth))
		}
	}
	return d
}

// zshTied are lower-case zsh parameters that stand for special ones
// (path for PATH); bash's special variables are all upper case.
var zshTied = []string{"path", "cdpath", "fpath", "manpath", "mailpath", "module_path", "psvar", "fignore", "prompt", "histchars"}

// assigned judges words that builtin sets or unsets as variables: besides
// their subscripts, a name other than a lower-case one may be a variable
// the shell itself uses (PATH picks the programs that later command words
// run, PS4 is expanded by set -x, IFS splits words), so the command is
// unanalysable, as an assignment is.
func (a *analysis) assigned(builtin string, names []word, depth int) Decision {
	d := a.subscripts(builtin, names, depth)
	for _, w := range names {
		if w.static {
			a.sets(w.value)
		}
		if !w.static || strings.IndexByte(w.value, '[') >= 0 {
			continue
		}
		if !lowerName(w.value) || slices.Contains(zshTied, w.value) {
			a.dynamic = true
			d = Max(d, a.unanalysable(builtin+" sets the shell variable "+w.src))
		}
	}
	return d
}

// lowerName reports whether s is a name of lower-case letters, digits and
// underscores, not starting with a digit.
func lowerName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// subscripts judges words that builtin takes as variable names. bash
// evaluates an array subscript in a name ("a[$(cmd)]") as arithmetic,
// running the substitutions in it even when the word was quoted, so such
// a name is unanalysable and its subscript is searched for forbidden
// commands as the double-quoted text bash expands.
func (a *analysis) subscripts(builtin string, names []word, depth int) Decision {
	d := Decision(0)
	for _, w := range names {
		if !w.static {
			continue // already dynamic: the command is not plain
		}
		open := strings.IndexByte(w.value, '[')
		if open < 0 {
			continue
		}
		sub := w.value[open+1:]
		if end := strings.LastIndexByte(sub, ']'); end >= 0 {
			sub = sub[:end]
		}
		d = Max(d, a.unanalysable(builtin+": array subscript in variable name "+w.src))
		d = Max(d, a.forbiddenIn(`: "`+sub+`"`, depth))
	}
	return d
}

// hasOptLetter reports whether a leading option cluster of ws (before the
// first operand or "--") holds letter; a dynamic word counts as holding it.
func hasOptLetter(ws []word, letter byte) bool {
	for _, w := range ws {
		switch {
		case !w.static:
			return true
		case w.value == "--" || !strings.HasPrefix(w.value, "-"):
			return false
		case strings.IndexByte(w.value[1:], letter) >= 0:
			return true
		}
	}
	return false
}

// arithmSubscripts searches the words of x, an arithmetic expression or a
// [[ ]] operand that bash evaluates as one, for array subscripts in quoted
// text: quotes keep the parse from seeing a substitution there, but bash
// removes them before it evaluates the subscript (the quoted index of
// ${a['$(cmd)']} too, where index says that x is a subscript whole).
func (a *analysis) arithmSubscripts(what string, x syntax.Node, index bool, src string, depth int) Decision {
	d := Decision(0)
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // their commands are walked as commands
		case *syntax.Word:
			w := analyseWord(n, src)
			switch {
			case !w.static || !quoted(n):
				// Dynamic, or no quotes: the parse saw what is there.
			case index:
				d = Max(d, a.subscripts(what, []word{{value: "[" + w.value + "]", src: w.src, static: true}}, depth))
			default:
				d = Max(d, a.subscripts(what, []word{w}, depth))
			}
			return false
		}
		return true
	})
	return d
}

// testSubscripts is arithmSubscripts for the operands of a [[ ]] test
// that bash evaluates as arithmetic or as a variable name.
func (a *analysis) testSubscripts(x syntax.TestExpr, src string, depth int) Decision {
	d := Decision(0)
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				d = Max(d, a.arithmSubscripts("[[", n.X, false, src, depth))
				d = Max(d, a.arithmSubscripts("[[", n.Y, false, src, depth))
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				d = Max(d, a.arithmSubscripts("[[", n.X, false, src, depth))
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		}
		return true
	})
	return d
}

// quoted reports whether w has quotes or backslash escapes, which hide
// from the parse what bash finds in its value.
func quoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') >= 0 {
				return true
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}
