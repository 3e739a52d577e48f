package execpolicy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where mvdan.cc/sh ends a heredoc body elsewhere than bash, a line bash
// runs is read as data (or data as commands): mvdan.cc/sh compares body
// lines with the raw text of the delimiter word, where bash decodes it
// ($'\x41' is A, "\$" is $), it ends an unquoted body at a line like
// ${HOME}EOF, it reads a body as quoted only when the last part of the
// word is, and it knows neither the <<- rule that a line equal to the
// delimiter before its tabs are stripped ends the body, nor the rule of
// bash 5.2 that inside $( ) a line starting with the delimiter and holding
// a ")" ends it. The analysis therefore reads every heredoc as bash does,
// and when the readings differ it rewrites the script so that they agree:
// each such delimiter becomes a fresh word found nowhere in the script,
// quoted as the original was, and the line bash ends the body at becomes
// that word. The rewritten script is then parsed and judged instead.

// maxHeredocRounds bounds how many times one script is rewritten.
const maxHeredocRounds = 8

// hdocRef is a heredoc redirect met by the walk, with the command
// substitution it is in (nil at the top level of the script).
type hdocRef struct {
	r    *syntax.Redirect
	encl syntax.Node // *syntax.CmdSubst or *syntax.ProcSubst
}

// hdoc is one heredoc as bash reads it.
type hdoc struct {
	ref                hdocRef
	wordStart, wordEnd int
	dash, quoted       bool
	delim              string
	// unsure says the reading rests on a guess: the delimiter holds an
	// expansion, or the body is in backquotes, which bash re-reads.
	unsure string
	// comsub: in $( ) or <( ), where bash 5.2 also ends a body at a line
	// that starts with the delimiter and holds a ")".
	comsub bool
	// limit is where the text bash reads body lines from ends: the
	// closing backquote of the backquotes around the heredoc, or the end
	// of the script.
	limit int
	// The reading: the body is src[bodyStart:termStart]; the delimiter
	// text of the line that ends it ends at termEnd (before its newline).
	// splitLine: the rest of that line is script (the $( ) rule).
	// unterminated: the body runs to limit.
	bodyStart, termStart, termEnd int
	splitLine, unterminated       bool
}

// heredocCheck compares mvdan.cc/sh's reading of the heredocs refs of f,
// parsed from src, with bash's. It returns "" when they agree; otherwise
// src rewritten so that the first heredoc read differently reads alike,
// and unsure when bash's reading of it is a guess (where its body starts,
// or how a delimiter with expansions is quote-removed).
func heredocCheck(f *syntax.File, src string, refs []hdocRef) (fixed, unsure string) {
	slices.SortStableFunc(refs, func(x, y hdocRef) int {
		return int(x.r.OpPos.Offset()) - int(y.r.OpPos.Offset())
	})
	hs := make([]hdoc, len(refs))
	for i, ref := range refs {
		hs[i] = newHdoc(ref, src)
	}
	sp := spanIndex{f: f}
	// Heredocs pending at one newline are read one after the other,
	// from the line after it, in the order of their operators.
	next := map[int]int{} // newline's next line -> where the next body starts
	for i := range hs {
		h := &hs[i]
		start := bodyStartAfter(src, h.wordEnd, int(h.ref.r.OpPos.Offset()), h.limit, &sp)
		if start < 0 {
			start = h.limit
		}
		at := start
		if n, ok := next[start]; ok {
			at = n
			if n < 0 {
				// The body would follow a line of script (the $( )
				// rule): where bash reads it from is not modelled.
				at, h.unsure = start, "heredoc after a split line"
			}
		}
		h.readBody(src, at)
		next[start] = h.nextLine(src)
		if h.splitLine {
			next[start] = -1
		}
	}
	for i := range hs {
		h := &hs[i]
		why := h.differs()
		if why == "" && h.unsure == "" {
			continue
		}
		if why == "start" || h.unsure != "" {
			unsure = "heredoc " + h.delim + " read differently"
		}
		return h.rewrite(src), unsure
	}
	return "", ""
}

// newHdoc reads the operator and delimiter of the heredoc ref.
func newHdoc(ref hdocRef, src string) hdoc {
	r := ref.r
	h := hdoc{ref: ref, dash: r.Op == syntax.DashHdoc, limit: len(src)}
	h.wordStart, h.wordEnd = int(r.Word.Pos().Offset()), int(r.Word.End().Offset())
	if h.wordEnd > len(src) || h.wordStart > h.wordEnd {
		h.wordStart, h.wordEnd = min(h.wordStart, len(src)), len(src)
		h.unsure = "heredoc word out of range"
	}
	delim, quoted, sure := bashDelimiter(src[h.wordStart:h.wordEnd])
	h.delim, h.quoted = delim, quoted
	if !sure {
		h.unsure = "heredoc delimiter with expansions"
	}
	switch e := ref.encl.(type) {
	case *syntax.CmdSubst:
		if e.Backquotes {
			// bash re-reads the text between the backquotes, with \\,
			// \` and \$ unescaped, as a script of its own.
			h.limit = min(int(e.Right.Offset()), len(src))
			if strings.IndexByte(src[h.wordEnd:h.limit], '\\') >= 0 {
				h.unsure = "heredoc in backquotes with backslashes"
			}
		} else {
			h.comsub = true
		}
	case *syntax.ProcSubst:
		h.comsub = true
	}
	return h
}

// readBody reads h's body from start as bash does: line by line, an
// unquoted body's lines joined at a backslash-newline, until a line equal
// to the delimiter (for <<-, also once its leading tabs are stripped).
func (h *hdoc) readBody(src string, start int) {
	h.bodyStart = start
	for pos := start; pos < h.limit; {
		end := pos + strings.IndexByte(src[pos:h.limit], '\n')
		if end < pos {
			end = h.limit
		}
		text := src[pos:end]
		joined := false
		if !h.quoted {
			// bash removes a backslash-newline before comparing.
			for end < h.limit && oddBackslashes(text) {
				next := end + 1 + strings.IndexByte(src[end+1:h.limit], '\n')
				if next <= end {
					next = h.limit
				}
				text = text[:len(text)-1] + src[end+1:next]
				end, joined = next, true
			}
		}
		stripped := text
		if h.dash {
			stripped = strings.TrimLeft(text, "\t")
		}
		if text == h.delim || stripped == h.delim {
			h.termStart, h.termEnd = pos, end
			return
		}
		if h.comsub && strings.HasPrefix(stripped, h.delim) && strings.Contains(stripped[len(h.delim):], ")") {
			h.termStart, h.termEnd, h.splitLine = pos, pos+len(text)-len(stripped)+len(h.delim), true
			if joined {
				h.unsure = "heredoc ends on a joined line"
			}
			return
		}
		pos = end + 1
	}
	h.termStart, h.termEnd, h.unterminated = h.limit, h.limit, true
}

// nextLine returns where the body of a heredoc read after h starts: after
// the line ending h.
func (h *hdoc) nextLine(src string) int {
	if h.unterminated {
		return h.limit
	}
	if h.termEnd < h.limit && src[h.termEnd] == '\n' {
		return h.termEnd + 1
	}
	return h.termEnd
}

func oddBackslashes(s string) bool {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// differs says how mvdan.cc/sh's reading of h differs from bash's: ""
// when it does not, "start" when its body starts elsewhere, "delimiter"
// or "end" otherwise.
func (h *hdoc) differs() string {
	r := h.ref.r
	if delim, quoted := mvdanDelimiter(r.Word); delim != h.delim || quoted != h.quoted {
		return "delimiter"
	}
	if h.unterminated || h.splitLine {
		return "end"
	}
	if r.Hdoc == nil || len(r.Hdoc.Parts) == 0 {
		if h.bodyStart != h.termStart {
			return "end"
		}
		return ""
	}
	if int(r.Hdoc.Pos().Offset()) != h.bodyStart {
		return "start"
	}
	// mvdan.cc/sh's last literal ends where the delimiter text of the
	// line ending the body does; a body ending in an expansion was ended
	// by what follows it on its line.
	last, ok := r.Hdoc.Parts[len(r.Hdoc.Parts)-1].(*syntax.Lit)
	if !ok || int(last.End().Offset()) != h.termEnd {
		return "end"
	}
	return ""
}

// rewrite returns src with h's delimiter word replaced by a fresh word,
// quoted when h's is, and the line bash ends h's body at by that word.
func (h *hdoc) rewrite(src string) string {
	return applyEdits(src, h.edits(freshDelimiter(src)))
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// edits returns the edits that make tok h's delimiter: its word, quoted
// when h's is, and the line bash ends h's body at.
func (h *hdoc) edits(tok string) []edit {
	word := tok
	if h.quoted {
		word = "'" + tok + "'"
	}
	term := tok
	switch {
	case h.unterminated:
		term = "\n" + tok + "\n"
	case h.splitLine:
		term = tok + "\n"
	}
	es := []edit{{h.wordStart, h.wordEnd, word}}
	if h.termStart >= h.wordEnd {
		// (A body before its own word cannot be: then only the word.)
		es = append(es, edit{h.termStart, h.termEnd, term})
	}
	return es
}

// applyEdits applies es to src; edits that overlap one applied before
// them are dropped.
func applyEdits(src string, es []edit) string {
	slices.SortStableFunc(es, func(x, y edit) int { return x.start - y.start })
	var b strings.Builder
	b.Grow(len(src) + 64)
	last := 0
	for _, e := range es {
		if e.start < last || e.end > len(src) || e.end < e.start {
			continue
		}
		b.WriteString(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(src[last:])
	return b.String()
}

// freshDelimiter returns a delimiter that occurs nowhere in src, so that
// no line of src can end a body early by ending in it.
func freshDelimiter(src string) string {
	tok := "GATEDEXEC_EOF"
	for strings.Contains(src, tok) {
		tok += "X"
	}
	return tok
}

// bodyStartAfter returns the offset after the newline, at or after from,
// that ends the line of a heredoc operator at op for bash: one that is no
// part of a word, comment or arithmetic command not holding op, and not
// escaped. It returns -1 when there is none before limit.
func bodyStartAfter(src string, from, op, limit int, sp *spanIndex) int {
	if from > limit {
		return -1
	}
	// Most lines hold nothing a newline could hide in.
	if i := strings.IndexByte(src[from:limit], '\n'); i >= 0 && !strings.ContainsAny(src[from:from+i], "'\"`$\\(#{") {
		return from + i + 1
	}
	spans := sp.spansAfter(from, op)
	k := 0
	for i := from; i < limit; i++ {
		for k < len(spans) && spans[k].end <= i {
			k++
		}
		if k < len(spans) && spans[k].start <= i {
			i = spans[k].end - 1
			continue
		}
		switch src[i] {
		case '\\':
			i++ // a backslash-newline joins lines
		case '#':
			if i == from || strings.IndexByte(" \t;&|()<>", src[i-1]) >= 0 {
				j := strings.IndexByte(src[i:limit], '\n')
				if j < 0 {
					return -1
				}
				return i + j + 1
			}
		case '\n':
			return i + 1
		}
	}
	return -1
}

// span is a range of source offsets.
type span struct{ start, end int }

// spanIndex lists, on first use, the spans of f's words and arithmetic
// commands, whose newlines end no line.
type spanIndex struct {
	f     *syntax.File
	spans []span
	done  bool
}

// spansAfter returns the outermost spans that end after from and do not
// hold op, sorted by start.
func (sp *spanIndex) spansAfter(from, op int) []span {
	if !sp.done {
		sp.done = true
		syntax.Walk(sp.f, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.Word, *syntax.ArithmCmd:
				sp.spans = append(sp.spans, span{int(n.Pos().Offset()), int(n.End().Offset())})
			}
			return true
		})
		slices.SortFunc(sp.spans, func(x, y span) int {
			if x.start != y.start {
				return x.start - y.start
			}
			return y.end - x.end
		})
	}
	var out []span
	for _, s := range sp.spans {
		if s.end <= from || s.start <= op && op < s.end {
			continue
		}
		if len(out) > 0 && s.start < out[len(out)-1].end {
			continue // inside the one before
		}
		out = append(out, s)
	}
	return out
}
