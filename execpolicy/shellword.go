package execpolicy

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one argument of a command as the analysis sees it.
type word struct {
	// value is the word after quote removal; meaningful only when static.
	value string
	// src is the word's source text, shown for a dynamic word.
	src string
	// static is true when the word has no parameter, command, arithmetic or
	// process expansion, so value is what the program receives (modulo
	// globbing and brace expansion).
	static bool
	// literal is true when value is exactly what the program receives: static
	// and with no unquoted glob, brace expansion or leading tilde.
	literal bool
}

// text returns the value of a static word and the source of a dynamic one.
func (w word) text() string {
	if w.static {
		return w.value
	}
	return w.src
}

// literalWords turns an execve argv, where no expansion ever happens, into
// words.
func literalWords(argv []string) []word {
	ws := make([]word, len(argv))
	for i, a := range argv {
		ws[i] = word{value: a, src: a, static: true, literal: true}
	}
	return ws
}

// analyseWord performs quote removal on w (src is the script w came from).
func analyseWord(w *syntax.Word, src string) word {
	out := word{static: true, literal: true}
	var v wordValue
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			glob, brace := unquoteLit(&v, p.Value)
			if glob || (i == 0 && strings.HasPrefix(p.Value, "~")) {
				out.literal = false
			}
			if brace && hasBraceExp(w) {
				out.literal = false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				s, ok := decodeANSIC(p.Value)
				if !ok {
					out.static, out.literal = false, false
				}
				v.add(s)
			} else {
				v.add(p.Value)
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				// $"..." is translated through the locale at run time.
				out.literal = false
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					out.static, out.literal = false, false
					continue
				}
				unquoteDbl(&v, lit.Value)
			}
		default:
			out.static, out.literal = false, false
		}
	}
	if out.static {
		out.value = v.String()
	}
	// The source text is only shown for words that are not plain literals;
	// computing End is not free.
	out.src = out.value
	if !out.literal {
		out.src = sourceOf(w, src)
	}
	return out
}

// QuoteRemoval returns w after quote removal and whether it is static:
// free of parameter, command, arithmetic and process expansion, so that
// the value is what a program receives (modulo globbing and brace
// expansion, which a caller must rule out if it needs to). It is the one
// quote removal of gatedexec: the analysis and the exec approver's words
// both use it.
func QuoteRemoval(w *syntax.Word) (string, bool) {
	aw := analyseWord(w, "")
	return aw.value, aw.static
}

// wordValue accumulates the value of a word. Most words are a single
// literal or quoted part without escapes, whose value is that part's text;
// wordValue keeps such a text as it is and copies only when parts are
// joined or escapes removed, so that the common word costs no allocation.
type wordValue struct {
	one    string // the value while it is a single unchanged piece
	joined bool   // the value is in b instead
	b      strings.Builder
}

// add appends s unchanged.
func (v *wordValue) add(s string) {
	switch {
	case v.joined:
		v.b.WriteString(s)
	case v.one == "":
		v.one = s
	case s != "":
		v.join(len(s))
		v.b.WriteString(s)
	}
}

// join moves the value into b, with room for n more bytes.
func (v *wordValue) join(n int) {
	if v.joined {
		return
	}
	v.joined = true
	v.b.Grow(len(v.one) + n)
	v.b.WriteString(v.one)
}

func (v *wordValue) String() string {
	if v.joined {
		return v.b.String()
	}
	return v.one
}

// sourceOf returns the source text of n within src, or "" when the
// positions do not fit src.
func sourceOf(n syntax.Node, src string) string {
	s, e := n.Pos().Offset(), n.End().Offset()
	if s > e || e > uint(len(src)) {
		return ""
	}
	return src[s:e]
}

// hasBraceExp reports whether bash would brace-expand w.
func hasBraceExp(w *syntax.Word) bool {
	// SplitBraces rewrites the word it is given; work on a copy.
	return syntax.SplitBraces(&syntax.Word{Parts: slices.Clone(w.Parts)})
}

// unquoteLit appends an unquoted literal with backslash escapes removed and
// reports whether it holds an unescaped glob character and whether it holds
// a brace, escaped or not.
func unquoteLit(v *wordValue, s string) (glob, brace bool) {
	escaped := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			escaped = true
		case '*', '?', '[':
			glob = true
		case '{':
			brace = true
		}
	}
	if !escaped {
		v.add(s)
		return glob, brace
	}
	glob = false
	v.join(len(s))
	b := &v.b
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '*' || c == '?' || c == '[':
			glob = true
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return glob, brace
}

// unquoteDbl appends a literal from inside double quotes, where a backslash
// only escapes $ ` " \ and newline.
func unquoteDbl(v *wordValue, s string) {
	if strings.IndexByte(s, '\\') < 0 {
		v.add(s)
		return
	}
	v.join(len(s))
	b := &v.b
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
			c = s[i]
		}
		b.WriteByte(c)
	}
}

// decodeANSIC decodes the body of a $'...' string. It reports false when the
// result would hold a NUL byte, which bash silently truncates at.
func decodeANSIC(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, strings.IndexByte(s, 0) < 0
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
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
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := 8
			switch e {
			case 'x':
				max = 2
			case 'u':
				max = 4
			}
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if n > utf8.MaxRune {
				return "", false
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	out := b.String()
	return out, strings.IndexByte(out, 0) < 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
