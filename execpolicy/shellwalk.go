package execpolicy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walk visits every node of f and analyses every simple command in it,
// wherever it is: lists, compound commands, function bodies, substitutions,
// redirect targets, assignment values and heredoc bodies.
// It also returns the heredocs it met, for heredocCheck.
func (a *analysis) walk(f *syntax.File, src string, depth int) (Decision, []hdocRef) {
	w := &walker{a: a, src: src, depth: depth, path: make([]syntax.Node, 0, 32),
		quotes: strings.IndexByte(src, '\'') >= 0}
	newNodeWalker(w).walk(f)
	return w.d, w.hdocs
}

// walker is the state of one walk.
type walker struct {
	a     *analysis
	src   string
	depth int
	d     Decision
	nest  int
	// path holds the nodes entered and not yet left, innermost last: the
	// nesting budget is counted on it, and it tells a pipeline apart from
	// the pipes inside it.
	path []syntax.Node
	// hdocs are the heredocs met, with the command substitution each
	// is in.
	hdocs []hdocRef
	// quotes: the script holds a single quote, which may be one bash
	// reads as text (see quotesAsText).
	quotes bool
}

// nodeVisitor is called as syntax.Walk calls its function: with each node
// on entering it, returning whether to descend, and with nil on leaving it.
type nodeVisitor interface {
	visit(n syntax.Node) bool
}

// nodeWalker walks a syntax tree for a nodeVisitor exactly as syntax.Walk
// would, visiting the same nodes in the same order, but faster: it
// descends itself into the nodes that make up most scripts and leaves only
// the rest to syntax.Walk, which defers within its loop over comments and
// so makes every call to it costly.
type nodeWalker struct {
	v nodeVisitor
	f func(syntax.Node) bool // v.visit, made once, for syntax.Walk
}

func newNodeWalker(v nodeVisitor) nodeWalker {
	return nodeWalker{v: v, f: v.visit}
}

// walk walks n and its descendants.
func (w nodeWalker) walk(n syntax.Node) {
	if !walksItself(n) {
		syntax.Walk(n, w.f)
		return
	}
	if !w.v.visit(n) {
		return
	}
	switch n := n.(type) {
	case *syntax.File:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.Stmt:
		if n.Cmd != nil {
			w.walk(n.Cmd)
		}
		for _, r := range n.Redirs {
			w.walk(r)
		}
	case *syntax.Redirect:
		if n.N != nil {
			w.walk(n.N)
		}
		w.walk(n.Word)
		if n.Hdoc != nil {
			w.walk(n.Hdoc)
		}
	case *syntax.CallExpr:
		for _, as := range n.Assigns {
			w.walk(as)
		}
		for _, word := range n.Args {
			w.walk(word)
		}
	case *syntax.BinaryCmd:
		w.walk(n.X)
		w.walk(n.Y)
	case *syntax.Block:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.Subshell:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.IfClause:
		w.stmts(n.Cond)
		w.comments(n.CondLast)
		w.stmts(n.Then)
		w.comments(n.ThenLast)
		w.comments(n.Last)
		if n.Else != nil {
			w.walk(n.Else)
		}
	case *syntax.WhileClause:
		w.stmts(n.Cond)
		w.comments(n.CondLast)
		w.stmts(n.Do)
		w.comments(n.DoLast)
	case *syntax.ForClause:
		w.walk(n.Loop)
		w.stmts(n.Do)
		w.comments(n.DoLast)
	case *syntax.WordIter:
		w.walk(n.Name)
		for _, word := range n.Items {
			w.walk(word)
		}
	case *syntax.Word:
		for _, p := range n.Parts {
			w.walk(p)
		}
	case *syntax.DblQuoted:
		for _, p := range n.Parts {
			w.walk(p)
		}
	case *syntax.CmdSubst:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.Lit, *syntax.SglQuoted:
		// No children.
	}
	w.v.visit(nil)
}

// walksItself reports whether walk descends into n itself rather than
// leaving it to syntax.Walk. It must name exactly the types walk has a case
// for: a type named here and missing there would have its children skipped.
// A statement with comments is left to syntax.Walk, which knows whether
// each goes before or after the rest.
func walksItself(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		return len(n.Comments) == 0
	case *syntax.File, *syntax.Redirect, *syntax.CallExpr, *syntax.BinaryCmd, *syntax.Block,
		*syntax.Subshell, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.WordIter,
		*syntax.Word, *syntax.DblQuoted, *syntax.CmdSubst, *syntax.Lit, *syntax.SglQuoted:
		return true
	}
	return false
}

func (w nodeWalker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.walk(s)
	}
}

func (w nodeWalker) comments(list []syntax.Comment) {
	for i := range list {
		w.walk(&list[i])
	}
}

// visit is called on entering every node n, and with nil on leaving it,
// as by syntax.Walk; it returns false to skip n's descendants.
func (w *walker) visit(n syntax.Node) bool {
	a, src, depth := w.a, w.src, w.depth
	if n == nil {
		if nests(w.path[len(w.path)-1]) {
			w.nest--
		}
		w.path = w.path[:len(w.path)-1]
		return true
	}
	if a.exhausted {
		return false
	}
	if nests(n) {
		w.nest++
		if w.nest > maxDepth {
			w.nest--
			w.d = Max(w.d, a.exhaust("nesting deeper than 64"))
			return false
		}
	}
	switch n := n.(type) {
	case *syntax.Redirect:
		if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc {
			w.hdocs = append(w.hdocs, hdocRef{r: n, encl: w.substitution()})
			// An unquoted body is double-quoted text to bash; a quoted
			// one is a single literal.
			if w.quotes && n.Hdoc != nil {
				w.d = Max(w.d, a.quotesAsText(n.Hdoc.Parts, depth+1))
			}
		}
	case *syntax.Stmt:
		if len(n.Redirs) > 0 { // shellStdin looks only at these
			w.d = Max(w.d, a.shellStdin(n, src, depth))
		}
	case *syntax.CallExpr:
		for _, as := range n.Assigns {
			if as.Name != nil {
				a.sets(as.Name.Value)
			}
		}
		if len(n.Args) > 0 {
			mark := len(a.scratch.words)
			ws := a.analyseWords(n.Args, src)
			w.d = Max(w.d, a.command(ws, depth))
			a.scratch.words = a.scratch.words[:mark]
		}
		// The words of a plain command hold nothing more to look at;
		// skipping them saves a visit per word.
		if len(n.Assigns) == 0 && !slices.ContainsFunc(n.Args, hasInner) {
			return false
		}
	case *syntax.DeclClause:
		a.declared(n, src)
		ws := []word{{value: n.Variant.Value, src: n.Variant.Value, static: true, literal: true}}
		for _, as := range n.Args {
			s := sourceOf(as, src)
			ws = append(ws, word{src: s})
			// A quoted name=value is an assignment too, and -i makes a
			// value arithmetic.
			if as.Value != nil {
				w.d = Max(w.d, a.arithmSubscripts(n.Variant.Value, as.Value, false, src, depth+1))
			}
		}
		w.d = Max(w.d, a.command(ws, depth))
	case *syntax.TimeClause:
		// bash's time keyword takes one -- after it (or after -p): the
		// command is the rest.
		if n.Stmt == nil {
			break
		}
		if c, ok := n.Stmt.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 1 && c.Args[0].Lit() == "--" {
			mark := len(a.scratch.words)
			ws := a.analyseWords(c.Args[1:], src)
			w.d = Max(w.d, a.command(ws, depth))
			a.scratch.words = a.scratch.words[:mark]
		}
	case *syntax.TestClause:
		w.d = Max(w.d, a.testSubscripts(n.X, src, depth+1))
	case *syntax.ArithmCmd:
		w.d = Max(w.d, a.arithmSubscripts("((", n.X, false, src, depth+1))
		if w.quotes {
			w.d = Max(w.d, a.arithmQuotesAsText(n.X, depth+1))
		}
	case *syntax.CStyleLoop:
		if w.quotes {
			for _, x := range [...]syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
				w.d = Max(w.d, a.arithmQuotesAsText(x, depth+1))
			}
		}
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			w.d = Max(w.d, a.arithmSubscripts("let", x, false, src, depth+1))
		}
	case *syntax.ArithmExp:
		a.dynamic = true
		w.d = Max(w.d, a.arithmSubscripts("$((", n.X, false, src, depth+1))
		if w.quotes {
			w.d = Max(w.d, a.arithmQuotesAsText(n.X, depth+1))
		}
	case *syntax.ParamExp:
		a.dynamic = true
		if n.Index != nil {
			w.d = Max(w.d, a.arithmSubscripts("${", n.Index, true, src, depth+1))
			// bash expands an indexed array's subscript as
			// double-quoted text, quoted or not: ${a['$(cmd)']} and
			// ${a[${x:-'$(cmd)'}]} run cmd.
			if w.quotes {
				w.d = Max(w.d, a.arithmQuotesAsText(n.Index, depth+1))
			}
		}
		if w.quotes && n.Slice != nil {
			w.d = Max(w.d, a.arithmQuotesAsText(n.Slice.Offset, depth+1))
			w.d = Max(w.d, a.arithmQuotesAsText(n.Slice.Length, depth+1))
		}
	case *syntax.Assign:
		// An indexed array's subscript is arithmetic: a[$(cmd)]=1.
		if w.quotes && n.Index != nil {
			w.d = Max(w.d, a.arithmQuotesAsText(n.Index, depth+1))
		}
	case *syntax.ArrayElem:
		if w.quotes && n.Index != nil {
			w.d = Max(w.d, a.arithmQuotesAsText(n.Index, depth+1))
		}
	case *syntax.DblQuoted:
		if w.quotes {
			w.d = Max(w.d, a.quotesAsText(n.Parts, depth+1))
		}
	case *syntax.BinaryCmd:
		// A pipe whose statement is a stage of another pipe was checked
		// with the whole pipeline.
		if isPipe(n.Op) && !(len(w.path) >= 2 && isPipeCmd(w.path[len(w.path)-2])) {
			if name := a.pipeIntoShell(n, src); name != "" {
				w.d = Max(w.d, a.danger(name))
			}
		}
	case *syntax.FuncDecl:
		if forkBomb(n) {
			w.d = Max(w.d, a.danger("fork bomb"))
		}
	case *syntax.CmdSubst:
		a.dynamic = true
		if n.Backquotes {
			w.d = Max(w.d, a.nestedBackquotes(n, src, depth))
		}
	case *syntax.ExtGlob:
		a.dynamic = true
		w.d = Max(w.d, a.extGlobPattern(n, depth))
	case *syntax.ProcSubst:
		a.dynamic = true
	case *syntax.Word:
		// A word of literal and single-quoted parts holds nothing the walk
		// looks at; skipping its parts saves a visit per part.
		if !hasInner(n) {
			return false
		}
	}
	w.path = append(w.path, n)
	return true
}

// substitution returns the innermost command or process substitution
// the walk is in, or nil.
func (w *walker) substitution() syntax.Node {
	for i := len(w.path) - 1; i >= 0; i-- {
		switch n := w.path[i].(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return n
		}
	}
	return nil
}
