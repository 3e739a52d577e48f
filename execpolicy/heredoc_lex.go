package execpolicy

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A script mvdan.cc/sh cannot parse may still be one bash runs: a heredoc
// whose delimiter bash decodes and mvdan.cc/sh does not is unclosed for
// it. Without a syntax tree the heredocs are found by lexHeredocs, a
// rough lexer that knows quotes, comments and arithmetic but not the
// grammar; what it finds is confirmed by parsing the rewritten script.

// lexHdoc is a heredoc operator found by lexHeredocs.
type lexHdoc struct {
	op                 int // offset of "<<"
	wordStart, wordEnd int
	dash               bool
	comsub             bool // after an unclosed "$(" or "<(": a guess
}

// lexHeredocs returns the heredoc operators of src in order. It skips
// quoted text, comments, arithmetic and the bodies of the heredocs it
// found, whose lines end at their raw delimiter.
func lexHeredocs(src string) []lexHdoc {
	var out []lexHdoc
	var pending []int // indexes in out whose bodies follow the next newline
	parens := 0       // unclosed $( and <( (a guess: case patterns close none)
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\\':
			i++
		case '\'':
			if i > 0 && src[i-1] == '$' {
				if e := ansiCEnd(src, i+1); e >= 0 {
					i = e
				} else {
					i = len(src)
				}
				continue
			}
			if j := strings.IndexByte(src[i+1:], '\''); j >= 0 {
				i += 1 + j
			} else {
				i = len(src)
			}
		case '"':
			i = dquoteEnd(src, i+1)
		case '#':
			if i == 0 || strings.IndexByte(" \t\n;&|()<>", src[i-1]) >= 0 {
				if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
					i += j - 1
				} else {
					i = len(src)
				}
			}
		case '(':
			if i+1 < len(src) && src[i+1] == '(' {
				// Arithmetic: << there is a shift.
				if j := strings.Index(src[i:], "))"); j >= 0 {
					i += j + 1
					continue
				}
			}
			if i > 0 && (src[i-1] == '$' || src[i-1] == '<' || src[i-1] == '>') {
				parens++
			}
		case ')':
			parens = max(parens-1, 0)
		case '<':
			if !strings.HasPrefix(src[i:], "<<") || strings.HasPrefix(src[i:], "<<<") {
				if strings.HasPrefix(src[i:], "<<<") {
					i += 2
				}
				continue
			}
			h := lexHdoc{op: i, comsub: parens > 0}
			j := i + 2
			if j < len(src) && src[j] == '-' {
				h.dash = true
				j++
			}
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			h.wordStart, h.wordEnd = j, lexWordEnd(src, j)
			if h.wordEnd > h.wordStart {
				out = append(out, h)
				pending = append(pending, len(out)-1)
			}
			i = max(h.wordEnd, j) - 1
		case '\n':
			// The bodies pending follow, each to its line equal to its
			// delimiter.
			pos := i + 1
			for _, k := range pending {
				h := hdoc{dash: out[k].dash, limit: len(src)}
				h.delim, h.quoted, _ = bashDelimiter(src[out[k].wordStart:out[k].wordEnd])
				h.readBody(src, pos)
				pos = h.nextLine(src)
			}
			if len(pending) > 0 {
				i = pos - 1
			}
			pending = pending[:0]
		}
	}
	return out
}

// dquoteEnd returns the index of the quote closing a "..." string whose
// body starts at i, or the last index of s.
func dquoteEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(s) - 1
}

// lexWordEnd returns where the word starting at i ends: at a blank or an
// operator byte outside quotes.
func lexWordEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
			return i
		case '\\':
			i++
		case '\'':
			if i > 0 && s[i-1] == '$' {
				if e := ansiCEnd(s, i+1); e >= 0 {
					i = e
					continue
				}
				return len(s)
			}
			if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
				i += 1 + j
			} else {
				return len(s)
			}
		case '"':
			i = dquoteEnd(s, i+1)
		}
	}
	return min(i, len(s))
}

// respellDelimiters returns src with each heredoc delimiter that
// mvdan.cc/sh reads otherwise than bash spelled as a single-quoted word
// of what bash reads, so that both end the body at the same line, and
// the offsets of the words it rewrote in the result. A <<- delimiter
// with a leading tab ends only at a line equal to it, tabs and all: such
// a heredoc becomes a << one. A delimiter holding a single quote or a
// newline, or an expansion, is left alone.
func respellDelimiters(src string, hs []lexHdoc) (string, []int) {
	var b strings.Builder
	var at []int
	last := 0
	for _, h := range hs {
		raw := src[h.wordStart:h.wordEnd]
		delim, quoted, sure := bashDelimiter(raw)
		if !quoted || !sure || strings.ContainsAny(delim, "'\n") {
			continue
		}
		dropDash := h.dash && strings.HasPrefix(delim, "\t")
		spelled := "'" + delim + "'"
		if spelled == raw && !dropDash {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(src))
		}
		if dropDash {
			b.WriteString(src[last : h.op+2])
			b.WriteString(src[h.op+3 : h.wordStart])
		} else {
			b.WriteString(src[last:h.wordStart])
		}
		at = append(at, b.Len())
		b.WriteString(spelled)
		last = h.wordEnd
	}
	if len(at) == 0 {
		return "", nil
	}
	b.WriteString(src[last:])
	return b.String(), at
}

// rewriteLexed returns src with every heredoc hs found rewritten as
// heredocCheck rewrites one, from bash's reading of it given where
// lexHeredocs saw its body start: a guess, for searching the script for
// forbidden commands only. With literal, every heredoc is rewritten
// quoted, its body read as text; expanding then returns the bodies of
// those that were not, which bash expands, that hold a substitution.
//
// The literal reading is for a body whose substitution does not parse
// ("`<<X" with no closing backquote): mvdan.cc/sh reads on into the lines
// after the body, where the nested heredoc hides the commands that bash,
// which reads a body to its delimiter line first and expands it when the
// command runs, runs after it.
func rewriteLexed(src string, hs []lexHdoc, literal bool) (fixed string, expanding []string) {
	// Read the bodies as lexHeredocs did, then rewrite from the last
	// heredoc back so that offsets stay valid.
	reads := make([]hdoc, len(hs))
	for k := range hs {
		h := &reads[k]
		*h = hdoc{dash: hs[k].dash, comsub: hs[k].comsub, limit: len(src), wordStart: hs[k].wordStart, wordEnd: hs[k].wordEnd}
		h.delim, h.quoted, _ = bashDelimiter(src[h.wordStart:h.wordEnd])
	}
	pos := -1
	for k := range reads {
		h := &reads[k]
		if pos < h.wordEnd {
			pos = len(src)
			if j := strings.IndexByte(src[h.wordEnd:], '\n'); j >= 0 {
				pos = h.wordEnd + j + 1
			}
		}
		h.readBody(src, pos)
		pos = h.nextLine(src)
	}
	tok := freshDelimiter(src)
	var es []edit
	for k := range reads {
		h := &reads[k]
		if literal && !h.quoted {
			if body := src[h.bodyStart:max(h.termStart, h.bodyStart)]; strings.Contains(body, "`") || strings.Contains(body, "$(") {
				expanding = append(expanding, body)
			}
			h.quoted = true
		}
		es = append(es, h.edits(tok+strconv.Itoa(k))...)
	}
	return applyEdits(src, es), expanding
}

// heredocWordsAt reports whether every offset in at starts the word of a
// heredoc in f.
func heredocWordsAt(f *syntax.File, at []int) bool {
	found := map[int]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Word != nil {
			found[int(r.Word.Pos().Offset())] = true
		}
		return true
	})
	for _, o := range at {
		if !found[o] {
			return false
		}
	}
	return true
}
