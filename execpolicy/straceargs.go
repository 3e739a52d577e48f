package execpolicy

import "strings"

// straceValued are strace's short options that take a value, attached or
// in the next word: in a cluster, the rest of the word is that value.
const straceValued = "abeEIoOpPsSuUX"

// straceArgs judges strace's output file (execOptions.script): an -o or
// --output value that starts with "|" or "!" is a command strace pipes
// its trace to, which an allow rule for strace, or for the command it
// traces, says nothing about. The traced command is judged as strace's
// wrapper entry reads it. Every word up to "--" is looked at, not only
// those before the first operand: strace has dozens of long options that
// take the next word as their value (--string-limit 100), so an operand
// may be a value, and an -o after it still strace's. That reads an -o of
// the traced command as strace's too, which is only stricter.
func straceArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	output := func(v *word) {
		if v == nil || !v.static {
			return
		}
		if cmd, ok := strings.CutPrefix(v.value, "|"); ok || strings.HasPrefix(v.value, "!") {
			if !ok {
				cmd = v.value[1:]
			}
			d = Max(d, a.unanalysable(ws[0].value+" -o pipes its output to a command"))
			d = Max(d, a.forbiddenIn(cmd, depth))
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			continue
		case v == "--":
			return d // the traced command follows
		case !strings.HasPrefix(v, "-") || v == "-":
			continue // an operand, or the value of a long option
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			if longPrefixOf(name, []string{"--output"}) == "" {
				continue
			}
			output(longValue(ws, &i, val, hasEq))
		default:
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(straceValued, v[j]) < 0 {
					continue
				}
				value := shortValue(ws, &i, v, j)
				if v[j] == 'o' {
					output(value)
				}
				break
			}
		}
	}
	return d
}
