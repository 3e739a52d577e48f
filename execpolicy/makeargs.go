package execpolicy

import "strings"

// GNU make's options and operands that change what its recipes run: an
// allow rule for "make test" trusts the makefile's recipes, not commands
// written into make's arguments, nor another makefile.
var (
	// makeEvalLong are the long options whose value is makefile text
	// (--eval=TEXT, -E TEXT).
	makeEvalLong = []string{"--eval"}
	// makeFileLong are the long options that name a makefile, or where
	// to find one, whose recipes the analysis cannot see.
	makeFileLong = []string{"--file", "--makefile", "--directory", "--include-dir"}
)

const (
	// makeFileShort are the short forms of makeFileLong (-f -C -I).
	makeFileShort = "fCI"
	// makeValued are the other short options whose value is the rest of
	// the cluster or the next word (-o FILE, -W FILE).
	makeValued = "oW"
	// makeAttached are the short options with an optional value, which
	// is only ever attached (-j4, -l2.5, -Oline).
	makeAttached = "jlO"
)

// makeArgs judges make's arguments (execOptions.script): --eval text and
// NAME=VALUE operands, which define variables (CC, SHELL, MAKEFLAGS) that
// the recipes expand into the commands they run, and the options that
// pick another makefile. Each is unanalysable, and the text that may be a
// command is searched for forbidden ones.
func makeArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	eval := func(v *word) {
		d = Max(d, a.unanalysable(prog+" --eval runs makefile text"))
		if v != nil && v.static {
			d = Max(d, a.makeTextForbidden(v.value, depth))
		}
	}
	file := func(opt string, v *word) {
		src := ""
		if v != nil {
			src = " " + v.src
		}
		d = Max(d, a.unanalysable(prog+" "+opt+src+": runs recipes of another makefile"))
	}
	options := true
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue // the command is not plain already
		}
		v := w.value
		switch {
		case options && v == "--":
			// Targets and variables follow; NAME=VALUE is one still.
			options = false
		case options && strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			if full := longPrefixOf(name, makeEvalLong); full != "" {
				eval(longValue(ws, &i, val, hasEq))
			} else if full := longPrefixOf(name, makeFileLong); full != "" {
				file(full, longValue(ws, &i, val, hasEq))
			}
		case options && strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case c == 'E':
					eval(shortValue(ws, &i, v, j))
				case strings.IndexByte(makeFileShort, c) >= 0:
					file("-"+string(c), shortValue(ws, &i, v, j))
				case strings.IndexByte(makeValued, c) >= 0:
					shortValue(ws, &i, v, j)
				case strings.IndexByte(makeAttached, c) >= 0:
				default:
					continue // a flag: the cluster goes on
				}
				break
			}
		default:
			name, val, ok := strings.Cut(v, "=")
			if !ok {
				continue // a target
			}
			d = Max(d, a.unanalysable(prog+" "+name+"=: sets a variable its recipes may run"))
			d = Max(d, a.forbiddenIn(val, depth))
		}
	}
	return d
}

// makeTextForbidden searches makefile text for forbidden commands: as a
// script, and, on each line, the text after its first "=" (a variable's
// value) and after its first ";" (a recipe on the rule's line).
func (a *analysis) makeTextForbidden(text string, depth int) Decision {
	d := a.forbiddenIn(text, depth)
	for line := range strings.SplitSeq(text, "\n") {
		for _, sep := range []string{"=", ";"} {
			if _, rest, ok := strings.Cut(line, sep); ok {
				d = Max(d, a.forbiddenIn(rest, depth))
			}
		}
	}
	return d
}
