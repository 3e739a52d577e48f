package execpolicy

import "strings"

// awkFileLong are awk's (gawk's) long options whose value is a file of
// awk code, or a library of it, that the analysis cannot see.
var awkFileLong = []string{"--file", "--exec", "--include", "--load"}

// awkSourceLong is gawk's option whose value is program text.
const awkSourceLong = "--source"

// awkArgs judges an awk program (execOptions.script): system(), the pipes
// print | "cmd" and "cmd" | getline (and gawk's |&), and gawk's @
// (indirect calls, which reach system too, @load, @include) run commands,
// which an allow rule for awk says nothing about. A program that holds
// one of them is unanalysable, and its string constants are searched for
// forbidden commands. A program read from a file (-f, gawk's -E, -i, -l,
// mawk's -W exec) is unanalysable.
func awkArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	var texts []word
	fromFile := false
	fileOpt := func(opt string) {
		fromFile = true
		d = Max(d, a.unanalysable(prog+" "+opt+": runs awk code from a file"))
	}
	i := 1
opts:
	for ; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			// A dynamic option or program: not plain already.
			return d
		case v == "--":
			i++
			break opts
		case v == "-" || !strings.HasPrefix(v, "-"):
			break opts
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			switch {
			case longPrefixOf(name, awkFileLong) != "":
				longValue(ws, &i, val, hasEq)
				fileOpt(name)
			case longPrefixOf(name, []string{awkSourceLong}) != "":
				if text := longValue(ws, &i, val, hasEq); text != nil {
					texts = append(texts, *text)
				}
			}
		default:
			// -F fs, -v a=b, -f file: each takes the rest of the word or
			// the next one.
			c := v[1]
			value := word{value: v[2:], src: v[2:], static: true}
			if len(v) == 2 && i+1 < len(ws) && strings.IndexByte("FvfEilWe", c) >= 0 {
				i++
				value = ws[i]
			}
			switch c {
			case 'f', 'E', 'i', 'l':
				fileOpt("-" + string(c))
			case 'W':
				// mawk's -W exec FILE, and gawk's -W for its long
				// options: judged as a file, the stricter.
				fileOpt("-W")
			case 'e':
				texts = append(texts, value)
			}
		}
	}
	if !fromFile && len(texts) == 0 && i < len(ws) {
		texts = append(texts, ws[i])
	}
	for _, t := range texts {
		if !t.static {
			continue
		}
		if how := awkRuns(t.value); how != "" {
			d = Max(d, a.unanalysable(prog+": "+how+" runs a command"))
			for _, s := range awkStrings(t.value) {
				d = Max(d, a.forbiddenIn(s, depth))
			}
		}
	}
	return d
}

// awkRuns returns what in the awk program text runs a command, or "".
func awkRuns(text string) string {
	switch {
	case strings.Contains(text, "system"):
		return "system()"
	case strings.Contains(strings.ReplaceAll(text, "||", ""), "|"):
		return "a pipe"
	case strings.Contains(text, "@"):
		return "@"
	}
	return ""
}

// awkStrings returns the string constants of an awk program, their
// escapes decoded as far as a command's text goes (\" \\ \n \t \/).
func awkStrings(text string) []string {
	var out []string
	for {
		open := strings.IndexByte(text, '"')
		if open < 0 {
			return out
		}
		var b strings.Builder
		j := open + 1
		for ; j < len(text) && text[j] != '"'; j++ {
			c := text[j]
			if c == '\\' && j+1 < len(text) {
				j++
				switch c = text[j]; c {
				case 'n':
					c = '\n'
				case 't':
					c = '\t'
				}
			}
			b.WriteByte(c)
		}
		out = append(out, b.String())
		if j >= len(text) {
			return out
		}
		text = text[j+1:]
	}
}
