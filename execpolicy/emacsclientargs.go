package execpolicy

import (
	"slices"
	"strings"
)

// emacsclient hands its operands to a running Emacs, which may be the
// user's own, outside the sandbox: with -e (--eval) they are Lisp that
// Emacs evaluates there, and Lisp runs programs ((shell-command "CMD"),
// call-process); -F's frame parameters are Lisp too; -a names a program
// run when no Emacs answers. An allow rule for emacsclient says nothing
// of them: "emacsclient -e '(shell-command \"rm x\")'" runs rm.

// emacsclient reads its options with getopt_long_only: a word with one
// dash is a long option, by its full name or a prefix of it (-nw, -tty,
// -ev, -p for --parent-id), unless it is a single letter of
// emacsclientShort; only when no long option fits is it a cluster of
// short options. The tables are Emacs 28.2's with 29's additions (-r
// --reuse-frame, -w --timeout): every long option is listed, flags too,
// so that a word is never read as a cluster whose valued letter takes the
// next word (-nw read as -n -w TIMEOUT took -e for its value).
const (
	emacsclientShort  = "nqueHVtcraFwsfdT"
	emacsclientValued = "aFwsfdT"
)

var (
	emacsclientFlags = []string{"--no-wait", "--quiet", "--suppress-output", "--eval", "--help", "--version",
		"--tty", "--nw", "--create-frame", "--reuse-frame"}
	emacsclientValuedLong = []string{"--alternate-editor", "--frame-parameters", "--socket-name", "--server-file",
		"--display", "--parent-id", "--timeout", "--tramp"}
	// emacsclientLong is both, written out (statictables.go).
	emacsclientLong = []string{"--no-wait", "--quiet", "--suppress-output", "--eval", "--help", "--version",
		"--tty", "--nw", "--create-frame", "--reuse-frame",
		"--alternate-editor", "--frame-parameters", "--socket-name", "--server-file",
		"--display", "--parent-id", "--timeout", "--tramp"}
)

// emacsclientArgs judges emacsclient's arguments (execOptions.script).
func emacsclientArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	eval := false
	var operands []word
	lisp := func(what string, v *word) {
		d = Max(d, a.unanalysable(prog+" "+what+": Lisp evaluated in the running Emacs"))
		if v != nil && v.static {
			for _, s := range awkStrings(v.value) {
				d = Max(d, a.forbiddenIn(s, depth))
			}
		}
	}
	option := func(opt string, v *word) {
		switch opt {
		case "--eval":
			eval = true
		case "--alternate-editor":
			d = Max(d, a.unanalysable(prog+" -a runs a command"))
			if v != nil && v.static {
				d = Max(d, a.forbiddenIn(v.value, depth))
			}
		case "--frame-parameters":
			lisp("-F", v)
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static || !strings.HasPrefix(v, "-") || v == "-":
			operands = append(operands, w)
		case v == "--":
			operands = append(operands, ws[i+1:]...)
			i = len(ws)
		case emacsclientLongWord(v):
			name, val, hasEq := strings.Cut(strings.TrimLeft(v, "-"), "=")
			long, ambiguous := longOptionOf("--"+name, emacsclientLong)
			switch {
			case ambiguous:
				// emacsclient refuses it; what it meant is unknown.
				d = Max(d, a.unanalysable(prog+" "+v+": an ambiguous option"))
			case long != "":
				var value *word
				if slices.Contains(emacsclientValuedLong, long) {
					value = longValue(ws, &i, val, hasEq)
				}
				option(long, value)
			case !strings.HasPrefix(v, "--"):
				// No long option fits: a cluster, as getopt falls back to.
				emacsclientCluster(ws, &i, option)
			}
		default:
			emacsclientCluster(ws, &i, option)
		}
	}
	if eval {
		for k := range operands {
			lisp("-e", &operands[k])
		}
		if len(operands) == 0 {
			d = Max(d, a.unanalysable(prog+" -e: Lisp evaluated in the running Emacs"))
		}
	}
	return d
}

// emacsclientLongWord reports whether v, an option word, is read as a long
// option first: any word with two dashes, and one with a single dash but
// for a single letter of emacsclientShort.
func emacsclientLongWord(v string) bool {
	return strings.HasPrefix(v, "--") || len(v) > 2 || strings.IndexByte(emacsclientShort, v[1]) < 0
}

// emacsclientCluster reads ws[*i] as a cluster of short options, handing
// each that matters to option as its long name, up to the first that
// takes a value: the rest of the cluster or the next word.
func emacsclientCluster(ws []word, i *int, option func(string, *word)) {
	v := ws[*i].value
	for j := 1; j < len(v); j++ {
		c := v[j]
		if c == 'e' {
			option("--eval", nil)
			continue
		}
		if strings.IndexByte(emacsclientValued, c) < 0 {
			continue
		}
		value := shortValue(ws, i, v, j)
		switch c {
		case 'a':
			option("--alternate-editor", value)
		case 'F':
			option("--frame-parameters", value)
		}
		return
	}
}
