package execpolicy

import "strings"

// gnuplot runs shell commands from its own commands: "system CMD",
// system("CMD"), "!CMD", backquotes, output to "|CMD" (set print, set
// output, set table, save, history) and data read from "< CMD" (plot,
// splot, stats, fit, load); load and call read commands from a file,
// eval and macros (@) run a string built at run time. It reads commands
// from -e, from its file operands and -c's script, and from stdin when
// given none. An allow rule for gnuplot says nothing of them: "gnuplot
// -e 'system \"rm x\"'" runs rm.

// gnuplotRuns are the gnuplot commands and functions that run a program,
// read commands or make a string that may name one, each with the fewest
// letters gnuplot takes for it: system's sy, call's ca, load's l (taken
// as load only where a command may start), eval, shell's she, import
// (which loads a library); sprintf("%c", 60) makes "<", strcol and the
// like read strings from a data file, value() reads GPVAL_ERRMSG.
var gnuplotRuns = []struct {
	name string
	min  int
}{
	{"call", 2}, {"columnhead", 10}, {"columnheader", 12}, {"evaluate", 4}, {"gprintf", 7},
	{"import", 2}, {"load", 1}, {"shell", 3}, {"sprintf", 7}, {"strcol", 6},
	{"stringcolumn", 12}, {"system", 2}, {"value", 5},
}

// gnuplotArgs judges gnuplot's arguments (execOptions.script).
func gnuplotArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	stdin := true
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			stdin = false // an operand, maybe: a file read, no less
			d = Max(d, a.unanalysable(prog+": "+w.src+" may be a script file"))
			continue
		}
		switch v := w.value; {
		case v == "-e":
			stdin = false
			if text := nextWord(ws, &i); text != nil && text.static {
				d = Max(d, gnuplotCommand(a, prog, text.value, depth))
			}
		case v == "-c":
			d = Max(d, a.unanalysable(prog+" -c: reads commands from a file"))
			return d
		case v == "-":
			d = Max(d, a.unanalysable(prog+": reads its commands from stdin"))
		case v == "-V" || v == "--version" || v == "-h" || v == "--help":
			// gnuplot reads these first and exits.
			stdin = false
		case strings.HasPrefix(v, "-"):
			// -p, -s, -d and what starts so; others are refused.
		default:
			stdin = false
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands from a file"))
		}
	}
	if stdin {
		d = Max(d, a.unanalysable(prog+": reads its commands from stdin"))
	}
	return d
}

// gnuplotCommand judges text, gnuplot commands: any of ! ` @ | < \ (a
// shell escape, a command substitution, a macro, a pipe, an escape that
// may spell one) and any word of gnuplotRuns outside strings make it
// unanalysable; its strings, what follows a "!" and what stands in
// backquotes are searched for forbidden commands.
func gnuplotCommand(a *analysis, prog, text string, depth int) Decision {
	d := Decision(0)
	if strings.ContainsAny(text, "!`@|<\\") {
		d = Max(d, a.unanalysable(prog+" -e: may run a command"))
	}
	prev := ";"
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '"' || c == '\'':
			end := strings.IndexByte(text[i+1:], c)
			if end < 0 {
				i = len(text)
			} else {
				i += end + 2
			}
			prev = "string"
		case isGnuplotIdent(c) && !(c >= '0' && c <= '9'):
			j := i
			for j < len(text) && isGnuplotIdent(text[j]) {
				j++
			}
			tok := text[i:j]
			if gnuplotRunsWord(tok, prev) {
				d = Max(d, a.unanalysable(prog+" -e: "+tok+" may run a command"))
			}
			prev, i = tok, j
		case c == ' ' || c == '\t':
			i++
		default:
			prev = string(c)
			i++
		}
	}
	for _, s := range quotedStrings(text, true) {
		d = Max(d, a.forbiddenIn(strings.TrimLeft(s, " <|"), depth))
	}
	for line := range linesAfter(text, "!") {
		d = Max(d, a.forbiddenIn(line, depth))
	}
	for i, s := range strings.Split(text, "`") {
		if i%2 == 1 {
			d = Max(d, a.forbiddenIn(s, depth))
		}
	}
	return d
}

// gnuplotRunsWord says whether tok, a word of gnuplot commands after prev
// (the word or character before it), is one of gnuplotRuns or starts
// GPVAL_. A lone "l" is load only where a command starts (not "with l").
func gnuplotRunsWord(tok, prev string) bool {
	if strings.HasPrefix(tok, "GPVAL_") {
		return true
	}
	for _, r := range gnuplotRuns {
		if len(tok) < r.min || !strings.HasPrefix(r.name, tok) {
			continue
		}
		if tok == "l" && prev != ";" && prev != "{" && prev != "}" && prev != ")" && prev != "\n" && prev != "else" {
			continue
		}
		return true
	}
	return false
}

// isGnuplotIdent says whether c may be part of a gnuplot name.
func isGnuplotIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
