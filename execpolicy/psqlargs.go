package execpolicy

import "strings"

// psql's meta-commands run programs (\! CMD, \o |CMD, \g |CMD, \copy ...
// program, \setenv, backquotes in any meta-command's arguments), its -o
// may be "|CMD", and SQL's COPY ... PROGRAM runs a command on the server,
// outside the sandbox. psql reads such commands from stdin unless -c,
// -f, -l or an option that only prints is given. An allow rule for psql
// says nothing of them: "psql -c '\! rm x'" runs rm.

// psqlValued are psql's short options that take a value, attached or in
// the next word.
const psqlValued = "cdfFhLoPpRTUv"

// psqlLong are psql's long options whose value is the next word when not
// after "=", each with the short option it is.
var psqlLong = []struct{ long, short string }{
	{"--command", "c"}, {"--dbname", "d"}, {"--field-separator", "F"},
	{"--file", "f"}, {"--host", "h"}, {"--list", "l"}, {"--log-file", "L"},
	{"--output", "o"}, {"--port", "p"}, {"--pset", "P"},
	{"--record-separator", "R"}, {"--set", "v"}, {"--table-attr", "T"},
	{"--username", "U"}, {"--variable", "v"}, {"--version", "V"},
}

// psqlArgs judges psql's arguments (execOptions.script).
func psqlArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	stdin := true
	option := func(c byte, v *word) {
		switch c {
		case 'c':
			stdin = false
			if v != nil && v.static {
				d = Max(d, psqlCommand(a, prog, v.value, depth))
			}
		case 'f':
			stdin = false
			d = Max(d, a.unanalysable(prog+" -f: reads commands of its own"))
		case 'l', 'V', '?':
			stdin = false
		case 'o':
			if v != nil && v.static && strings.HasPrefix(v.value, "|") {
				d = Max(d, a.unanalysable(prog+" -o |: runs a command"))
				d = Max(d, a.forbiddenIn(v.value[1:], depth))
			}
		case 'v':
			// A variable's value is pasted into prompts and meta-commands,
			// where backquotes run it.
			if v != nil && v.static && strings.Contains(v.value, "`") {
				d = Max(d, a.unanalysable(prog+" -v: a variable with a command in backquotes"))
			}
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			continue // the command is not plain already
		case v == "--":
			i = len(ws)
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			if name == "--help" || longPrefixOf(name, []string{"--help"}) != "" {
				stdin = false
				continue
			}
			for _, o := range psqlLong {
				if longPrefixOf(name, []string{o.long}) == "" {
					continue
				}
				var value *word
				if strings.Contains(psqlValued, o.short) {
					value = longValue(ws, &i, val, hasEq)
				}
				option(o.short[0], value)
				break
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte(psqlValued, c) < 0 {
					option(c, nil)
					continue
				}
				option(c, shortValue(ws, &i, v, j))
				break
			}
		}
	}
	if stdin {
		d = Max(d, a.unanalysable(prog+": reads its commands from stdin"))
	}
	return d
}

// psqlCommand judges text, the value of psql -c: a meta-command (a
// backslash) or COPY ... PROGRAM is unanalysable, and what follows \! is
// searched for forbidden commands.
func psqlCommand(a *analysis, prog, text string, depth int) Decision {
	d := Decision(0)
	if strings.Contains(text, `\`) {
		d = Max(d, a.unanalysable(prog+" -c: a meta-command may run a command"))
		for line := range linesAfter(text, `\!`) {
			d = Max(d, a.forbiddenIn(line, depth))
		}
	}
	if hasSQLWord(text, "program") {
		d = Max(d, a.unanalysable(prog+" -c: COPY ... PROGRAM runs a command on the server"))
	}
	return d
}
