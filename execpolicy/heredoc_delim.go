package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// bashDelimiter returns the delimiter bash ends a heredoc body at, given
// the source text of the heredoc word: the word after quote removal, where
// $'...' is decoded and $"..." read as "...". quoted reports whether any
// part of the word is quoted, which alone decides whether the body is
// expanded. sure is false when the word holds a construct (an expansion
// or a backquote) whose quote removal the analysis does not model.
func bashDelimiter(raw string) (delim string, quoted, sure bool) {
	var b strings.Builder
	sure = true
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\\':
			quoted = true
			if i+1 < len(raw) {
				i++
				if raw[i] != '\n' {
					b.WriteByte(raw[i])
				}
			}
		case c == '\'':
			quoted = true
			end := strings.IndexByte(raw[i+1:], '\'')
			if end < 0 {
				return b.String() + raw[i+1:], true, false
			}
			b.WriteString(raw[i+1 : i+1+end])
			i += 1 + end
		case c == '$' && i+1 < len(raw) && raw[i+1] == '\'':
			quoted = true
			end := ansiCEnd(raw, i+2)
			if end < 0 {
				return b.String(), true, false
			}
			s, ok := decodeANSIC(raw[i+2 : end])
			if !ok {
				sure = false
			}
			b.WriteString(s)
			i = end
		case c == '"' || c == '$' && i+1 < len(raw) && raw[i+1] == '"':
			quoted = true
			if c == '$' {
				i++
			}
			j := i + 1
			for ; j < len(raw) && raw[j] != '"'; j++ {
				switch d := raw[j]; {
				case d == '\\' && j+1 < len(raw) && strings.IndexByte("\\$\"`\n", raw[j+1]) >= 0:
					j++
					if raw[j] != '\n' {
						b.WriteByte(raw[j])
					}
				case d == '$' || d == '`':
					sure = false
					b.WriteByte(d)
				default:
					b.WriteByte(d)
				}
			}
			if j >= len(raw) {
				sure = false
			}
			i = j
		case c == '$' || c == '`':
			// bash keeps $x and $(cmd) in a delimiter as they are
			// written, but how it quote-removes what they hold is not
			// modelled.
			if i+1 < len(raw) && strings.IndexByte("({`", raw[i+1]) >= 0 || c == '`' {
				sure = false
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), quoted, sure
}

// ansiCEnd returns the index of the quote closing a $'...' string whose
// body starts at i in s, or -1: a backslash escapes the byte after it.
func ansiCEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			return i
		}
	}
	return -1
}

// mvdanDelimiter returns the delimiter mvdan.cc/sh (v3.14) ends the body
// of a heredoc with word w at, and whether it reads the body as quoted,
// as its unquotedWordBytes does: $'...' is not decoded, a backslash is
// kept inside double quotes, expansions are dropped, and only the last
// part of the word decides whether the body is quoted.
func mvdanDelimiter(w *syntax.Word) (delim string, quoted bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		quoted = false
		switch p := part.(type) {
		case *syntax.Lit:
			for i := 0; i < len(p.Value); i++ {
				if c := p.Value[i]; c == '\\' {
					if i++; i < len(p.Value) {
						b.WriteByte(p.Value[i])
					}
					quoted = true
				} else {
					b.WriteByte(c)
				}
			}
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
			quoted = true
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if lit, ok := dp.(*syntax.Lit); ok {
					b.WriteString(lit.Value)
				}
			}
			quoted = true
		}
	}
	return b.String(), quoted
}
