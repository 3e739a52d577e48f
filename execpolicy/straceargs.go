package execpolicy

import "strings"

// straceOptions are strace's short options that take a value, attached or
// in the next word (in a cluster, the rest of the word is that value), and
// -o's long name.
var straceOptions = getopt{valued: "abeEIoOpPsSuUX", long: []string{"--output"}}

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
	// Up to "--": the traced command follows.
	for opt, v := range straceOptions.options(ws) {
		if opt == "-o" || opt == "--output" {
			output(v)
		}
	}
	return d
}
