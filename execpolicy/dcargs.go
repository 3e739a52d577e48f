package execpolicy

import "strings"

// dc's "!" runs the rest of its line as a shell command (but "!<", "!="
// and "!>" compare), and "?" reads a line of stdin and runs it as dc
// code. dc reads its code from -e, from -f's file and its operands' files,
// and from stdin when given none of them. An allow rule for dc says
// nothing of them: "dc -e '!rm x'" runs rm.

// dcArgs judges dc's arguments (execOptions.script).
func dcArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	stdin := true
	code := func(v *word) {
		stdin = false
		if v != nil && v.static {
			d = Max(d, dcCode(a, prog, v.value, depth))
		}
	}
	file := func() {
		stdin = false
		d = Max(d, a.unanalysable(prog+": reads its code from a file"))
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			stdin = false // an operand or option all the same, not plain
		case v == "--":
			if i+1 < len(ws) {
				file()
			}
			i = len(ws)
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			switch {
			case longPrefixOf(name, []string{"--expression"}) != "":
				code(longValue(ws, &i, val, hasEq))
			case longPrefixOf(name, []string{"--file"}) != "":
				longValue(ws, &i, val, hasEq)
				file()
			case longPrefixOf(name, []string{"--version", "--help"}) != "":
				stdin = false
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'e':
					code(shortValue(ws, &i, v, j))
				case 'f':
					shortValue(ws, &i, v, j)
					file()
				case 'V', 'h':
					stdin = false
					continue
				default:
					continue
				}
				break
			}
		default:
			file() // "-" included: stdin, read as a file
		}
	}
	if stdin {
		d = Max(d, a.unanalysable(prog+": reads its code from stdin"))
	}
	return d
}

// dcCode judges text, dc code: a "!" that runs a command makes it
// unanalysable, and the rest of that line is searched for forbidden
// commands; a "?" reads code from stdin.
func dcCode(a *analysis, prog, text string, depth int) Decision {
	d := Decision(0)
	if strings.Contains(text, "?") {
		d = Max(d, a.unanalysable(prog+" ?: runs code read from stdin"))
	}
	for line := range linesAfter(text, "!") {
		if line != "" && strings.IndexByte("<=>", line[0]) >= 0 {
			continue // a comparison
		}
		d = Max(d, a.unanalysable(prog+" !: runs a command"))
		d = Max(d, a.forbiddenIn(line, depth))
	}
	return d
}
