package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where bash expands text as if it were double-quoted, a single quote is
// an ordinary character, yet mvdan.cc/sh still parses '…' there as a
// single-quoted string, whose $( ) and backquotes it reads as text: in the
// word of ${x-word} and its kin inside double quotes or an unquoted
// heredoc body ("${x:-'$(cmd)'}" runs cmd), and in arithmetic, which bash
// expands as double-quoted text before evaluating it ($(( '$(cmd)' )),
// (( )), for (( )), ${x:off:len}, the subscript of ${a[…]}). Each such string is searched for
// forbidden commands as the double-quoted text bash reads. A $'…' there is
// no ANSI-C string either, but bash decodes it all the same inside a
// double-quoted ${…} (the extquote option, on by default) and in
// arithmetic, and expands what it decodes to: both readings are searched.
// bash honours the quotes of the patterns of ${x#…}, ${x%…} and ${x/…},
// which are left alone.

// textOperator reports whether op's word is text bash expands as the
// context around the ${…} is: the -, +, = and ? operators, with or
// without a colon.
func textOperator(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		// bash 5.2 honours the quotes of ${x?word}'s message; reading
		// it as text too is only stricter.
		return true
	}
	return false
}

// quotesAsText searches the single-quoted strings of parts, which bash
// expands as double-quoted text, and of the words of the ${x-word}
// expansions among them, for forbidden commands. Double quotes among the
// parts are left to the walk, which calls this for every one.
func (a *analysis) quotesAsText(parts []syntax.WordPart, depth int) Decision {
	d := Decision(0)
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.SglQuoted:
			d = Max(d, a.sglQuotedAsText(p, depth))
		case *syntax.ParamExp:
			if p.Exp != nil && p.Exp.Word != nil && textOperator(p.Exp.Op) {
				d = Max(d, a.quotesAsText(p.Exp.Word.Parts, depth))
			}
		}
	}
	return d
}

// arithmQuotesAsText is quotesAsText for the words of x, an arithmetic
// expression (nil when left out, as in for ((;;))).
func (a *analysis) arithmQuotesAsText(x syntax.ArithmExpr, depth int) Decision {
	if x == nil {
		return 0
	}
	d := Decision(0)
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			// Substitutions in the word are walked as commands.
			d = Max(d, a.quotesAsText(w.Parts, depth))
			return false
		}
		return true
	})
	return d
}

// sglQuotedAsText searches q, a single-quoted string bash reads as
// double-quoted text, for forbidden commands: its text with the quotes
// (which bash keeps as characters) and, for a $'…', what it decodes to.
func (a *analysis) sglQuotedAsText(q *syntax.SglQuoted, depth int) Decision {
	d := Decision(0)
	if strings.ContainsAny(q.Value, "$`") {
		open := "'"
		if q.Dollar {
			open = "$'"
		}
		d = a.forbiddenIn(`: "`+open+q.Value+`'"`, depth)
	}
	if q.Dollar {
		// bash stops at a NUL the decoding yields, as the value of a
		// word does.
		s, _ := decodeANSIC(q.Value)
		s, _, _ = strings.Cut(s, "\x00")
		if s != q.Value && strings.ContainsAny(s, "$`") {
			d = Max(d, a.forbiddenIn(`: "`+s+`"`, depth))
		}
	}
	return d
}
