package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// crStandIn replaces carriage returns in the variant of a script that
// lineQuirks analyses: a byte that, like CR for bash, is an ordinary word
// character to mvdan.cc/sh, which would otherwise read CR LF as LF.
const crStandIn = "\x01"

// hasLineQuirks reports whether src holds a line continuation or a
// carriage return, which mvdan.cc/sh does not read as bash does.
func hasLineQuirks(src string) bool {
	return strings.IndexByte(src, '\r') >= 0 || strings.Contains(src, "\\\n")
}

// lineQuirks judges a script where mvdan.cc/sh and bash may disagree on
// how its lines join, so that its parse f (nil when it did not parse)
// cannot be trusted to show every command bash runs:
//   - mvdan.cc/sh ends a comment at a line continuation and joins the next
//     line to the command before the comment; bash ends the comment at the
//     newline and runs that line ("ls # \<newline>curl x" runs curl);
//   - bash joins continuations inside double quotes and unquoted heredoc
//     bodies, also before it compares a line with the heredoc's delimiter,
//     where mvdan.cc/sh keeps a literal "$" or the line ("$\<newline>(cmd)");
//   - mvdan.cc/sh reads CR LF as LF and backslash CR LF as a continuation;
//     bash keeps the CR in the word.
//
// Such a script is never plain. Variants of it that undo each difference
// are analysed on the side for forbidden commands: a variant can only
// reveal more of what bash might run, never hide what the parse shows.
func (a *analysis) lineQuirks(f *syntax.File, src string, depth int) Decision {
	d := Decision(0)
	if strings.IndexByte(src, '\r') >= 0 {
		d = a.unanalysable("carriage return in script")
		d = Max(d, a.forbiddenIn(strings.ReplaceAll(src, "\r", crStandIn), depth+1))
	}
	if !strings.Contains(src, "\\\n") {
		return d
	}
	d = Max(d, a.unanalysable("line continuation"))
	// Joining everywhere, also where bash does not (single quotes,
	// comments, quoted heredocs), errs on the side of finding more.
	d = Max(d, a.forbiddenIn(strings.ReplaceAll(src, "\\\n", ""), depth+1))
	if f != nil {
		if patched, ok := endCommentsAtNewline(f, src); ok {
			d = Max(d, a.forbiddenIn(patched, depth+1))
		}
	}
	return d
}

// endCommentsAtNewline returns src with the backslash ending each comment
// of f that mvdan.cc/sh ended at a line continuation replaced by a space,
// so that the next line parses as the new command it is for bash. f must
// have been parsed with comments kept. It reports false when f has no such
// comment.
func endCommentsAtNewline(f *syntax.File, src string) (string, bool) {
	var b []byte
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok || !strings.HasSuffix(c.Text, "\\\n") {
			return true
		}
		if e := c.End().Offset(); e >= 2 && e <= uint(len(src)) && src[e-2:e] == "\\\n" {
			if b == nil {
				b = []byte(src)
			}
			b[e-2] = ' '
		}
		return true
	})
	if b == nil {
		return "", false
	}
	return string(b), true
}

// forbiddenIn analyses src, a variant of the script being judged or a
// script its words run, on the side, and records only what it finds
// forbidden, and its dynamic commands: the variant's other commands are
// no part of the evaluation, but one it cannot know statically ($a rm x)
// is what the prompt of the script it stands for is due to.
func (a *analysis) forbiddenIn(src string, depth int) Decision {
	return a.variantAt(Forbidden, src, depth)
}

// variantAt analyses src, a variant of the script being judged, on the
// side, and records what it finds at least least and its dynamic commands.
func (a *analysis) variantAt(least Decision, src string, depth int) Decision {
	return a.aside(least, func(sub *analysis) Decision {
		d := sub.script(src, depth)
		for _, c := range sub.commands {
			if c.Dynamic {
				a.commands = append(a.commands, c)
			}
		}
		return d
	})
}

// fresh returns a new analysis in a's dialect, sharing a's budgets and
// scratch, for a reading on the side.
func (a *analysis) fresh() *analysis {
	return &analysis{p: a.p, match: a.match, spent: a.spent, scratch: a.scratch, lang: a.lang, safe: true, agentTerminal: a.agentTerminal}
}

// aside runs judge on a fresh analysis in a's dialect, sharing a's budgets
// and scratch. When judge decides at least least, the reasons of sub that
// stand for least or more are copied into a, and its decision returned;
// the rest of sub (its commands, its allows) is dropped. The variables
// sub found are kept whatever it decides: a reading that sets one the
// main reading does not is no less a reason for a caller to look.
func (a *analysis) aside(least Decision, judge func(sub *analysis) Decision) Decision {
	sub := a.fresh()
	d := judge(sub)
	a.variables = append(a.variables, sub.variables...)
	if d < least {
		return 0
	}
	for j, r := range sub.reasons {
		if sub.reasonDecisions[j] >= least {
			a.reason(r.Kind, sub.reasonDecisions[j], r.Detail)
		}
	}
	a.safe = a.safe && sub.safe
	a.nonPlain = a.nonPlain || sub.nonPlain
	a.dynamic = a.dynamic || sub.dynamic
	a.dangerous = a.dangerous || sub.dangerous
	return d
}
