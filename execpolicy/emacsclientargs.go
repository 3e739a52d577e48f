package execpolicy

import "strings"

// emacsclient hands its operands to a running Emacs, which may be the
// user's own, outside the sandbox: with -e (--eval) they are Lisp that
// Emacs evaluates there, and Lisp runs programs ((shell-command "CMD"),
// call-process); -F's frame parameters are Lisp too; -a names a program
// run when no Emacs answers. An allow rule for emacsclient says nothing
// of them: "emacsclient -e '(shell-command \"rm x\")'" runs rm.

// emacsclientValued are emacsclient's short options that take a value,
// attached or in the next word; emacsclientLong its long ones, read with
// one dash or two and as any prefix (getopt_long_only).
const emacsclientValued = "adsfFTw"

var emacsclientLong = []string{"--alternate-editor", "--display", "--eval", "--frame-parameters", "--parent-id",
	"--server-file", "--socket-name", "--timeout", "--tramp"}

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
		name, val, hasEq := strings.Cut(strings.TrimLeft(v, "-"), "=")
		long := longPrefixOf("--"+name, emacsclientLong)
		switch {
		case !w.static || !strings.HasPrefix(v, "-") || v == "-":
			operands = append(operands, w)
		case v == "--":
			operands = append(operands, ws[i+1:]...)
			i = len(ws)
		case strings.HasPrefix(v, "--") || len(v) > 2 && long != "":
			// A long option, with two dashes or one (-eval).
			var value *word
			if long != "" && long != "--eval" {
				value = longValue(ws, &i, val, hasEq)
			}
			option(long, value)
		default:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'e' {
					eval = true
					continue
				}
				if strings.IndexByte(emacsclientValued, c) < 0 {
					continue
				}
				value := shortValue(ws, &i, v, j)
				switch c {
				case 'a':
					option("--alternate-editor", value)
				case 'F':
					option("--frame-parameters", value)
				}
				break
			}
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
