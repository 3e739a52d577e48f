package execpolicy

import "strings"

// sedRuns is what a GNU sed script runs, as readSedScript finds it.
type sedRuns struct {
	// commands are the commands of its e COMMAND commands, which sed
	// runs with /bin/sh -c.
	commands []string
	// patternSpace: an e without a command or an s command with the e
	// flag runs the text being edited, which no analysis knows.
	patternSpace bool
	// files: an r, R, w or W command or the w flag of s, which sed
	// --sandbox refuses as it refuses e; they run nothing (the fuzz
	// target tells them apart from e with it).
	files bool
	// unsure is why the script was not read with certainty ("" when it
	// was): it may run anything.
	unsure string
}

// readSedScript reads script, the text of a GNU sed program (its -e
// expressions joined by newlines, as sed joins them), for the commands it
// runs. It follows sed 4.9's grammar: commands separated by newlines or
// semicolons, each after up to two addresses and a "!"; the text of a, i,
// c and e running to the end of its line, a backslash-newline continuing
// it, and the file name of r, R, w and W to the end of its line; the
// delimited parts of s and y, where a backslash escapes the next
// character and a bracket expression in s's regex may hold the delimiter.
// What it does not know, it reports unsure rather than guess.
func readSedScript(script string) sedRuns {
	return readSedPrefix(script, len(script))
}

// readSedPrefix is readSedScript for the commands of script that begin
// before end, where the scripts sed compiled after --sandbox begin: it
// refuses e, r and w in those. The text of a command before end may run
// on past it, and is read to its end.
func readSedPrefix(script string, end int) sedRuns {
	var out sedRuns
	if strings.IndexByte(script, 'e') < 0 {
		// Neither the e command nor the e flag: nothing runs.
		return out
	}
	r := sedReader{s: script}
	for out.unsure == "" {
		r.skip(" \t\n;")
		if r.i >= end {
			break
		}
		if r.peek() == '#' {
			r.toEOL()
			continue
		}
		if !r.addresses() {
			out.unsure = "sed address not understood"
			break
		}
		out.unsure = r.command(&out)
	}
	return out
}

// sedReader is a position in a sed script.
type sedReader struct {
	s string
	i int
}

func (r *sedReader) eof() bool { return r.i >= len(r.s) }

func (r *sedReader) peek() byte {
	if r.eof() {
		return 0
	}
	return r.s[r.i]
}

// skip skips the bytes of set.
func (r *sedReader) skip(set string) {
	for !r.eof() && strings.IndexByte(set, r.s[r.i]) >= 0 {
		r.i++
	}
}

// toEOL returns the rest of the line and moves past its newline.
func (r *sedReader) toEOL() string {
	rest := r.s[r.i:]
	line, _, found := strings.Cut(rest, "\n")
	r.i += len(line)
	if found {
		r.i++
	}
	return line
}

// digits skips a run of digits and reports whether there was one.
func (r *sedReader) digits() bool {
	start := r.i
	r.skip("0123456789")
	return r.i > start
}

// addresses reads the addresses and "!" before a command.
func (r *sedReader) addresses() bool {
	if !r.address(false) {
		return false
	}
	r.skip(" \t")
	if r.peek() == ',' {
		r.i++
		r.skip(" \t")
		if !r.address(true) {
			return false
		}
		r.skip(" \t")
	}
	if r.peek() == '!' {
		r.i++
		r.skip(" \t")
	}
	return true
}

// address reads one address, if any: N, N~M, $, /RE/ or \cREc with the
// I and M flags, and after a comma also +N and ~N. It reports false when
// one starts but does not end.
func (r *sedReader) address(second bool) bool {
	switch c := r.peek(); {
	case c >= '0' && c <= '9':
		r.digits()
		if r.peek() == '~' {
			r.i++
			r.digits()
		}
	case c == '$':
		r.i++
	case second && (c == '+' || c == '~'):
		r.i++
		return r.digits()
	case c == '/' || c == '\\':
		if c == '\\' {
			r.i++
		}
		if r.eof() || r.peek() == '\n' || r.peek() == '\\' {
			return false
		}
		delim := r.s[r.i]
		r.i++
		if !r.delimited(delim, true) {
			return false
		}
		r.skip("IM")
	}
	return true
}

// delimited moves past the part of an s or y command or a regex address
// ending at delim. A backslash escapes the next character, a newline
// included; an unescaped newline ends the part too early; in a regex,
// a bracket expression may hold delim.
func (r *sedReader) delimited(delim byte, regex bool) bool {
	if delim >= 0x80 {
		return false // sed takes only single-byte delimiters
	}
	for !r.eof() {
		c := r.s[r.i]
		switch {
		case c == '\\':
			r.i += 2
			continue
		case c == '\n':
			return false
		case c == delim:
			r.i++
			return true
		case c == '[' && regex:
			if !r.bracket() {
				return false
			}
			continue
		}
		r.i++
	}
	return false
}

// bracket moves past a bracket expression at r.i: [^]...], with
// [:class:], [=e=] and [.c.] inside. It reports false when none ends on
// this line.
func (r *sedReader) bracket() bool {
	j := r.i + 1
	if j < len(r.s) && r.s[j] == '^' {
		j++
	}
	if j < len(r.s) && r.s[j] == ']' {
		j++
	}
	for j < len(r.s) {
		switch c := r.s[j]; {
		case c == '\n':
			return false
		case c == ']':
			r.i = j + 1
			return true
		case c == '[' && j+1 < len(r.s) && strings.IndexByte(":=.", r.s[j+1]) >= 0:
			end := strings.Index(r.s[j+2:], string(r.s[j+1])+"]")
			if end < 0 {
				return false
			}
			j += 2 + end + 2
			continue
		}
		j++
	}
	return false
}

// command reads one command after its addresses, recording in out what
// it runs, and returns why it was not understood, or "".
func (r *sedReader) command(out *sedRuns) string {
	if r.eof() {
		return "sed address without a command"
	}
	c := r.s[r.i]
	r.i++
	switch c {
	case '{':
		return ""
	case '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		r.skip(" \t")
		r.digits()
	case ':', 'b', 't', 'T', 'v':
		// A label ends at a blank or a semicolon; a command may follow
		// it at once.
		r.skip(" \t")
		for !r.eof() && strings.IndexByte(" \t\n;", r.s[r.i]) < 0 {
			r.i++
		}
		return ""
	case 'a', 'i', 'c':
		r.text()
		return ""
	case 'r', 'R', 'w', 'W':
		out.files = true
		r.toEOL()
		return ""
	case 'e':
		if cmd := r.commandText(); cmd != "" {
			out.commands = append(out.commands, cmd)
		} else {
			out.patternSpace = true
		}
		return ""
	case 's', 'y':
		if r.eof() || r.peek() == '\n' || r.peek() == '\\' {
			return "sed " + string(c) + " without a delimiter"
		}
		delim := r.s[r.i]
		r.i++
		if !r.delimited(delim, c == 's') || !r.delimited(delim, false) {
			return "sed " + string(c) + " command not understood"
		}
		if c == 's' && r.substFlags(out) {
			return ""
		}
	default:
		return "unknown sed command " + string(c)
	}
	return r.endOfCommand()
}

// substFlags reads the flags of an s command and reports whether the
// last, w FILE, took the rest of the line.
func (r *sedReader) substFlags(out *sedRuns) bool {
	for !r.eof() {
		switch c := r.s[r.i]; {
		case c == 'e':
			out.patternSpace = true
		case c == 'w':
			out.files = true
			r.toEOL()
			return true
		case c >= '0' && c <= '9', strings.IndexByte("gpiImM", c) >= 0:
		default:
			return false
		}
		r.i++
	}
	return false
}

// text moves past the text of an a, i or c command: to the end of the
// line, a backslash-newline continuing it.
func (r *sedReader) text() {
	for !r.eof() {
		switch r.s[r.i] {
		case '\\':
			r.i += 2
			continue
		case '\n':
			r.i++
			return
		}
		r.i++
	}
}

// commandText reads the command of an e, which GNU sed reads as the
// text of a, i and c: after blanks and an optional backslash (and the
// newline after it), to the end of the line, a backslash-newline
// continuing it, into the next -e script too. It returns the text with
// its escapes decoded, as sed passes it to the shell: "e echo \<newline>
// rm p" runs rm p. It returns "" for an e without a command.
func (r *sedReader) commandText() string {
	r.skip(" \t")
	if r.peek() == '\\' {
		r.i++
		if r.peek() == '\n' {
			r.i++
		}
	} else if r.eof() || r.peek() == '\n' {
		r.skip("\n")
		return ""
	}
	start := r.i
	r.text()
	// text steps over a backslash ending the script, past its end.
	return sedUnescape(strings.TrimSuffix(r.s[start:min(r.i, len(r.s))], "\n"))
}

// sedUnescape decodes the escapes of the text of a GNU sed a, i, c or e
// command: \a, \f, \n, \r, \t and \v, \cX, \dNNN, \oNNN and \xHH; a
// backslash before any other character (a newline too) is dropped.
func sedUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			if c != '\\' {
				b.WriteByte(c)
			}
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(s) {
				i++
				x := s[i]
				if x >= 'a' && x <= 'z' {
					x -= 'a' - 'A'
				}
				b.WriteByte(x ^ 0x40)
			} else {
				b.WriteByte(c)
			}
		case 'd', 'o', 'x':
			base, width := 10, 3
			if c == 'o' {
				base = 8
			} else if c == 'x' {
				base, width = 16, 2
			}
			n, j := 0, i+1
			for ; j < len(s) && j-i-1 < width && digitValue(s[j]) < base; j++ {
				n = n*base + digitValue(s[j])
			}
			if j == i+1 {
				b.WriteByte(c) // no digits: the letter itself
				continue
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// endOfCommand checks that a command ends where it should: at the end of
// the script or of the line, a semicolon, a "}" or a comment.
func (r *sedReader) endOfCommand() string {
	r.skip(" \t")
	if r.eof() || strings.IndexByte("\n;}#", r.peek()) >= 0 {
		return ""
	}
	return "extra characters after a sed command"
}

// digitValue returns the value of c as a digit of a base up to 16, or 16
// when it is none.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 16
}
