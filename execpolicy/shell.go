package execpolicy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Budgets of the analysis; exhausting one makes the command prompt.
const (
	maxScriptBytes = 1 << 20 // one script
	maxTotalBytes  = 4 << 20 // all scripts re-parsed for one evaluation
	maxCommands    = 10000
	maxDepth       = 64 // nesting of constructs and of wrappers/re-parses
	// maxRoughNesting bounds roughNesting before parsing: the parser
	// recurses once per nesting level and a deep enough input overflows
	// the goroutine stack, which is fatal, not a panic.
	maxRoughNesting = 1000
)

// nestOpen and nestClose are the keywords that open and close a nesting
// level for roughNesting.
var (
	nestOpen  = []string{"if", "while", "until", "case", "for", "select", "function", "coproc"}
	nestClose = []string{"fi", "done", "esac"}
)

// roughNesting over-estimates how deeply src nests, ignoring quoting:
// brackets and compound-command keywords open and close levels, and
// prefixes like ! and time count until the end of the pipeline.
func roughNesting(src string) int {
	depth, prefix, deepest := 0, 0, 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth = max(depth-1, 0)
		case '!':
			prefix++
		case ';', '\n', '&', '|':
			prefix = 0
		default:
			if c < 'a' || c > 'z' || i > 0 && isWordByte(src[i-1]) {
				continue
			}
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			switch w := src[i:j]; {
			case slices.Contains(nestOpen, w):
				depth++
			case slices.Contains(nestClose, w):
				depth = max(depth-1, 0)
			case w == "time":
				prefix++
			}
			i = j - 1
		}
		deepest = max(deepest, depth+prefix)
	}
	return deepest
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// script analyses one shell script at wrapper depth depth and returns its
// decision. Its commands and reasons go to a.
func (a *analysis) script(src string, depth int) Decision {
	if depth > maxDepth {
		return a.exhaust("nesting deeper than 64")
	}
	if strings.IndexByte(src, 0) >= 0 {
		a.dynamic = true
		return a.unanalysable("NUL byte in script")
	}
	if len(src) > maxScriptBytes {
		return a.exhaust("script larger than 1 MiB")
	}
	if roughNesting(src) > maxRoughNesting {
		return a.exhaust("nesting too deep to parse")
	}
	a.parsed += len(src)
	if a.parsed > maxTotalBytes {
		return a.exhaust("re-parsed scripts larger than 4 MiB")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.dynamic = true
		return a.unanalysable("parse error: " + err.Error())
	}
	d := Decision(0)
	if len(f.Stmts) == 0 {
		d = a.unanalysable("empty script")
	}
	for _, s := range f.Stmts {
		d = Max(d, a.plainStmt(s, src))
	}
	d = Max(d, a.walk(f, src, depth))
	return d
}

// plainStmt checks that s is within the plain subset (DESIGN §3, corpus rule
// 5) and returns Prompt with a reason when it is not.
func (a *analysis) plainStmt(s *syntax.Stmt, src string) Decision {
	d := Decision(0)
	switch {
	case s.Background || s.Coprocess || s.Disown:
		d = a.unanalysable("background job")
	case s.Negated:
		d = a.unanalysable("negated command")
	}
	for _, r := range s.Redirs {
		d = Max(d, a.plainRedirect(r, src))
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			a.dynamic = true
			d = Max(d, a.unanalysable("assignment "+sourceOf(c.Assigns[0], src)))
		}
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			d = Max(d, a.plainStmt(c.X, src))
			d = Max(d, a.plainStmt(c.Y, src))
		default:
			d = Max(d, a.unanalysable("operator "+c.Op.String()))
		}
	case nil:
		d = Max(d, a.unanalysable("redirection without command"))
	default:
		d = Max(d, a.unanalysable(constructName(c)))
	}
	return d
}

// constructName names a compound command for a reason.
func constructName(c syntax.Command) string {
	switch c.(type) {
	case *syntax.Subshell:
		return "subshell"
	case *syntax.Block:
		return "command group"
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause:
		return "control flow"
	case *syntax.FuncDecl:
		return "function definition"
	case *syntax.CoprocClause:
		return "coprocess"
	case *syntax.TimeClause:
		return "time keyword"
	case *syntax.DeclClause:
		return "declaration"
	}
	return "compound command"
}

// plainRedirect allows fd duplication, output to /dev/null and heredoc or
// here-string bodies without expansion.
func (a *analysis) plainRedirect(r *syntax.Redirect, src string) Decision {
	if r.N != nil && !allDigits(r.N.Value) {
		return a.unanalysable("named file descriptor {" + r.N.Value + "}")
	}
	target := ""
	if r.Word != nil {
		target = sourceOf(r.Word, src)
	}
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		w := analyseWord(r.Word, src)
		if w.literal && (allDigits(w.value) || w.value == "-") {
			return 0
		}
		return a.unanalysable("write redirect to " + target)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		if w := analyseWord(r.Word, src); w.literal && w.value == "/dev/null" {
			return 0
		}
		return a.unanalysable("write redirect to " + target)
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			for _, p := range r.Hdoc.Parts {
				if _, ok := p.(*syntax.Lit); !ok {
					a.dynamic = true
					return a.unanalysable("expansion in heredoc body")
				}
			}
		}
		return 0
	case syntax.WordHdoc:
		if !analyseWord(r.Word, src).literal {
			a.dynamic = true
			return a.unanalysable("expansion in here-string")
		}
		return 0
	case syntax.RdrIn:
		return a.unanalysable("input redirect from " + target)
	}
	return a.unanalysable(fmt.Sprintf("redirect %s %s", r.Op, target))
}

// walk visits every node of f and analyses every simple command in it,
// wherever it is: lists, compound commands, function bodies, substitutions,
// redirect targets, assignment values and heredoc bodies.
func (a *analysis) walk(f *syntax.File, src string, depth int) Decision {
	d := Decision(0)
	nest := 0
	var stack []bool
	// innerPipes are the pipes inside a pipeline already checked whole.
	var innerPipes map[*syntax.BinaryCmd]bool
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			if stack[len(stack)-1] {
				nest--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		if a.exhausted {
			return false
		}
		deep := nests(n)
		if deep {
			nest++
			if nest > maxDepth {
				nest--
				d = Max(d, a.exhaust("nesting deeper than 64"))
				return false
			}
		}
		stack = append(stack, deep)
		switch n := n.(type) {
		case *syntax.Stmt:
			d = Max(d, a.shellStdin(n, src, depth))
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				ws := make([]word, len(n.Args))
				for i, w := range n.Args {
					ws[i] = analyseWord(w, src)
				}
				d = Max(d, a.command(ws, depth))
			}
		case *syntax.DeclClause:
			ws := []word{{value: n.Variant.Value, src: n.Variant.Value, static: true, literal: true}}
			for _, as := range n.Args {
				s := sourceOf(as, src)
				ws = append(ws, word{src: s})
			}
			d = Max(d, a.command(ws, depth))
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && !innerPipes[n] {
				if innerPipes == nil {
					innerPipes = map[*syntax.BinaryCmd]bool{}
				}
				if name := pipeIntoShell(n, src, innerPipes); name != "" {
					d = Max(d, a.danger(name))
				}
			}
		case *syntax.FuncDecl:
			if forkBomb(n) {
				d = Max(d, a.danger("fork bomb"))
			}
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			a.dynamic = true
		}
		return true
	})
	return d
}

// nests reports whether n adds a level of nesting for the depth budget.
func nests(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.Subshell, *syntax.Block, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
		*syntax.CaseClause, *syntax.FuncDecl, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp,
		*syntax.ArithmExp, *syntax.ArithmCmd, *syntax.TestClause, *syntax.ParenArithm, *syntax.ParenTest,
		*syntax.CoprocClause, *syntax.TimeClause, *syntax.DblQuoted:
		return true
	}
	return false
}

// downloaders and interpreters for the curl|sh floor entry.
var (
	downloaders      = []string{"curl", "wget"}
	pipeInterpreters = []string{"bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "python", "python3", "perl", "ruby", "node"}
)

// pipeIntoShell reports a pipeline where a downloader's output reaches a
// shell or interpreter ("curl | sudo bash").
// Nested pipes of the pipeline are added to inner so that the pipeline is
// checked once, not once per stage.
func pipeIntoShell(b *syntax.BinaryCmd, src string, inner map[*syntax.BinaryCmd]bool) string {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			inner[bc] = true
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)
	sawDownload := false
	for _, s := range stages {
		prog := stageProgram(s, src)
		switch {
		case programIn(prog, downloaders):
			sawDownload = true
		case sawDownload && programIn(prog, pipeInterpreters):
			return "download piped into a shell"
		}
	}
	return ""
}

// stageProgram returns the program a pipeline stage runs, seen through
// argv wrappers (sudo, env, ...).
func stageProgram(s *syntax.Stmt, src string) string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return ""
	}
	if lit := c.Args[0].Lit(); lit != "" && !strings.ContainsAny(lit, "\\*?[{~") {
		if _, wrapped := lookupWrapper(lit); !wrapped {
			return lit
		}
	}
	ws := make([]word, len(c.Args))
	for i, w := range c.Args {
		ws[i] = analyseWord(w, src)
	}
	for range maxDepth {
		if len(ws) == 0 || !ws[0].static {
			return ""
		}
		spec, ok := lookupWrapper(ws[0].value)
		if !ok || spec.kind != runsArgv {
			return ws[0].value
		}
		u := unwrap(spec, ws)
		if len(u.argvs) == 0 {
			return ws[0].value
		}
		ws = u.argvs[0]
	}
	return ""
}

func programIn(prog string, set []string) bool {
	if prog == "" {
		return false
	}
	base := prog[strings.LastIndexByte(prog, '/')+1:]
	for _, s := range set {
		if base == s || strings.HasPrefix(base, s) && strings.Trim(base[len(s):], "0123456789.") == "" {
			return true
		}
	}
	return false
}

// forkBomb reports a function that calls itself in a pipeline or in the
// background: :(){ :|:& }.
func forkBomb(f *syntax.FuncDecl) bool {
	if f.Name == nil {
		return false
	}
	name := f.Name.Value
	found := false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (callsName(n.X, name) || callsName(n.Y, name)) {
				found = true
			}
		case *syntax.Stmt:
			if n.Background && callsName(n, name) {
				found = true
			}
		}
		return !found
	})
	return found
}

func callsName(s *syntax.Stmt, name string) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	return ok && len(c.Args) > 0 && c.Args[0].Lit() == name
}

// shellStdin analyses the heredoc or here-string fed to a shell that reads
// its script from stdin (sh <<< 'curl ...'), so that a forbidden command
// there is seen. The command stays outside the plain subset either way.
func (a *analysis) shellStdin(s *syntax.Stmt, src string, depth int) Decision {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(s.Redirs) == 0 {
		return 0
	}
	prog := c.Args[0].Lit()
	if !slices.Contains(shells, prog[strings.LastIndexByte(prog, '/')+1:]) {
		return 0
	}
	ws := make([]word, len(c.Args))
	for i, w := range c.Args {
		ws[i] = analyseWord(w, src)
	}
	if u := unwrap(shellWrapper, ws); len(u.scripts) > 0 || u.uncertain != "" {
		return 0
	}
	d := Decision(0)
	for _, r := range s.Redirs {
		var body *syntax.Word
		switch r.Op {
		case syntax.WordHdoc:
			body = r.Word
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		}
		if body == nil {
			continue
		}
		w := analyseWord(body, src)
		if r.Op != syntax.WordHdoc {
			// A heredoc body is not quote-removed; only its literal parts count.
			w = word{value: body.Lit(), static: body.Lit() != "" || len(body.Parts) == 0}
		}
		if w.static {
			d = Max(d, a.script(w.value, depth+1))
		}
	}
	return d
}
