package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// sets records that the command line sets, exports or unsets the
// variable name ("NAME", "NAME=VALUE", "NAME+=VALUE" or "NAME[i]=VALUE",
// after quote removal), for Evaluation.Variables. Only names are kept:
// what a caller looks for is which variables a command may change, not
// their values.
func (a *analysis) sets(name string) {
	if i := strings.IndexAny(name, "=+["); i >= 0 {
		name = name[:i]
	}
	if name != "" {
		a.variables = append(a.variables, name)
	}
}

// declaration records the variables that the declaration builtin at ws[0]
// (declare, export, local, readonly, typeset, nameref) names in its
// static operands, NAME or NAME=VALUE, and, after -n, the variables its
// namerefs refer to, which an assignment through the reference sets.
// Options are taken wherever they are: reading a mistaken operand as one
// can only add names. A dynamic word names what it expands to at run
// time, which is not known here.
func (a *analysis) declaration(ws []word) {
	nameref := ws[0].value == "nameref"
	for _, w := range ws[1:] {
		if !w.static {
			continue
		}
		v := w.value
		if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
			nameref = nameref || v[0] == '-' && strings.IndexByte(v, 'n') >= 0
			continue
		}
		a.sets(v)
		if _, ref, ok := strings.Cut(v, "="); ok && nameref {
			a.sets(ref)
		}
	}
}

// declared records the variables of the declaration clause n, as
// declaration does for a declaration builtin's words. The parser gives
// an unquoted NAME its own node and leaves a quoted one (export
// "NAME=VALUE", $'\x41=1') a word, which bash decodes before it reads
// the name; both are decoded here.
func (a *analysis) declared(n *syntax.DeclClause, src string) {
	ws := make([]word, 0, 1+len(n.Args))
	ws = append(ws, word{value: n.Variant.Value, static: true})
	for _, as := range n.Args {
		switch {
		case as.Name != nil:
			w := word{value: as.Name.Value, static: true}
			if as.Value != nil {
				if v := analyseWord(as.Value, src); v.static {
					w.value += "=" + v.value
				}
			}
			ws = append(ws, w)
		case as.Value != nil:
			ws = append(ws, analyseWord(as.Value, src))
		}
	}
	a.declaration(ws)
}
