package execpolicy

import (
	"maps"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// rejudgeHeredocs judges fixed, the script src rewritten by heredocCheck,
// in src's place. When bash's reading of src was a guess (unsure), the
// script is unanalysable and mvdan.cc/sh's reading f of it is searched
// for forbidden commands as well.
func (a *analysis) rejudgeHeredocs(lang syntax.LangVariant, f *syntax.File, src, fixed, unsure string, depth int) Decision {
	d := Decision(0)
	if unsure != "" {
		d = a.unanalysable(unsure)
		d = Max(d, a.aside(Forbidden, func(sub *analysis) Decision {
			wd, _ := sub.walk(f, src, depth+1)
			return wd
		}))
	}
	a.hdocRounds++
	if a.hdocRounds > maxHeredocRounds {
		d = Max(d, a.unanalysable("heredocs rewritten more than 8 times"))
		return Max(d, a.forbiddenIn(fixed, depth+1))
	}
	return Max(d, a.scriptIn(lang, fixed, depth))
}

// analysisMark is what mark saves of an analysis, for rollback.
type analysisMark struct {
	commands, reasons, variables       int
	reasonSeen                         [4]uint64
	allowProfiles                      map[string]bool
	dynamic, dangerous, safe, nonPlain bool
}

// mark saves what judging a script adds to a, so that rollback can undo
// it; the budgets spent stay spent.
func (a *analysis) mark() analysisMark {
	return analysisMark{
		commands: len(a.commands), reasons: len(a.reasons), variables: len(a.variables), reasonSeen: a.reasonSeen,
		allowProfiles: maps.Clone(a.allowProfiles),
		dynamic:       a.dynamic, dangerous: a.dangerous, safe: a.safe, nonPlain: a.nonPlain,
	}
}

// rollback undoes what was recorded in a since m was made.
func (a *analysis) rollback(m analysisMark) {
	clear(a.commands[m.commands:])
	a.commands = a.commands[:m.commands]
	clear(a.reasons[m.reasons:])
	a.reasons = a.reasons[:m.reasons]
	a.reasonDecisions = a.reasonDecisions[:m.reasons]
	a.reasonSeen = m.reasonSeen
	a.variables = a.variables[:m.variables]
	a.allowProfiles = m.allowProfiles
	a.dynamic, a.dangerous, a.safe, a.nonPlain = m.dynamic, m.dangerous, m.safe, m.nonPlain
}

// respelled judges src, which mvdan.cc/sh could not parse, with the
// heredoc delimiters that mvdan.cc/sh reads otherwise than bash respelled
// (see respellDelimiters). It reports false when there is none, or when
// the respelled script does not parse with a heredoc at every word
// respelled: the rough lexer that found them was wrong.
func (a *analysis) respelled(lang syntax.LangVariant, src string, depth int) (Decision, bool) {
	if a.hdocRounds >= maxHeredocRounds {
		return 0, false
	}
	fixed, at := respellDelimiters(src, lexHeredocs(src))
	if fixed == "" {
		return 0, false
	}
	f, err := a.scratch.shellParser(lang).Parse(strings.NewReader(fixed), "")
	if err != nil || !heredocWordsAt(f, at) {
		return 0, false
	}
	a.hdocRounds++
	return a.scriptIn(lang, fixed, depth), true
}

// lexedHeredocs searches src, which mvdan.cc/sh could not parse, for
// forbidden commands as bash may read it: with every heredoc lexHeredocs
// finds rewritten from bash's reading of it, and again with every body
// read as text and the bodies bash expands searched apart (see
// rewriteLexed).
func (a *analysis) lexedHeredocs(src string, depth int) Decision {
	if a.hdocLexed {
		return 0
	}
	hs := lexHeredocs(src)
	if respelt, _ := respellDelimiters(src, hs); respelt != "" {
		src, hs = respelt, lexHeredocs(respelt)
	}
	d := Decision(0)
	if fixed, _ := rewriteLexed(src, hs, false); fixed != src {
		d = a.aside(Forbidden, func(sub *analysis) Decision {
			sub.hdocLexed = true
			return sub.script(fixed, depth+1)
		})
	}
	literal, expanding := rewriteLexed(src, hs, true)
	if len(expanding) == 0 {
		return d
	}
	// The bodies' substitutions may run before the one that does not
	// parse: each body is searched as a script of its own.
	d = Max(d, a.aside(Forbidden, func(sub *analysis) Decision {
		sub.hdocLexed = true
		return sub.script(literal, depth+1)
	}))
	for _, body := range expanding {
		d = Max(d, a.forbiddenIn(body, depth+1))
	}
	return d
}
