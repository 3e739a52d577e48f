package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Constructs mvdan.cc/sh parses otherwise than bash, outside heredocs.
// Each is searched for forbidden commands as bash reads it; none of them
// is plain in either reading.

// arithmSubshells searches src, which did not parse, as bash reads a
// "((" or "$((" that is no arithmetic expression: as two parentheses, a
// subshell in a subshell or in a command substitution ("((ls); rm x)").
func (a *analysis) arithmSubshells(src string, depth int) Decision {
	if !strings.Contains(src, "((") {
		return 0
	}
	return a.forbiddenIn(strings.ReplaceAll(src, "((", "( ("), depth+1)
}

// nestedBackquotes searches the command substitution c, in backquotes,
// for forbidden commands as bash reads it when it holds backquotes of its
// own: bash takes the text between the backquotes, removes the backslash
// before \, ` and $, and parses the result; mvdan.cc/sh reads a third
// level as text.
func (a *analysis) nestedBackquotes(c *syntax.CmdSubst, src string, depth int) Decision {
	l, r := int(c.Left.Offset())+1, int(c.Right.Offset())
	if l > r || r > len(src) || !strings.Contains(src[l:r], "\\`") {
		return 0
	}
	inner := src[l:r]
	var b strings.Builder
	b.Grow(len(inner))
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' && i+1 < len(inner) && strings.IndexByte("\\`$", inner[i+1]) >= 0 {
			i++
		}
		b.WriteByte(inner[i])
	}
	return a.forbiddenIn(b.String(), depth+1)
}

// extGlobPattern searches the pattern of an extended glob, @(a|$(cmd)),
// for forbidden commands: bash expands the substitutions it holds, which
// mvdan.cc/sh keeps as text. The pattern is read as the arguments of a
// command, its alternatives as the stages of a pipeline.
func (a *analysis) extGlobPattern(g *syntax.ExtGlob, depth int) Decision {
	if g.Pattern == nil || !strings.ContainsAny(g.Pattern.Value, "$`<>") {
		return 0
	}
	return a.forbiddenIn(": "+g.Pattern.Value, depth+1)
}

// arrayComments searches f, parsed from src, for an array assignment
// followed at once by "#": bash reads a=(1)#y as one word, the scalar
// assignment of "(1)#y", and runs what follows, where mvdan.cc/sh reads
// a comment. Such a script is unanalysable, and searched with the
// parentheses escaped, as the scalar assignment bash reads.
func (a *analysis) arrayComments(f *syntax.File, src string, depth int) Decision {
	var es []edit
	syntax.Walk(f, func(n syntax.Node) bool {
		if as, ok := n.(*syntax.Assign); ok && as.Array != nil {
			l, r := int(as.Array.Lparen.Offset()), int(as.Array.Rparen.Offset())
			if l < r && r+1 < len(src) && src[r+1] == '#' {
				es = append(es, edit{l, l + 1, "\\("}, edit{r, r + 1, "\\)"})
			}
		}
		return true
	})
	if len(es) == 0 {
		return 0
	}
	d := a.unanalysable("array assignment followed by #")
	return Max(d, a.forbiddenIn(applyEdits(src, es), depth+1))
}
