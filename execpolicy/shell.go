package execpolicy

import (
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Budgets of the analysis; exhausting one makes the command prompt.
const (
	maxScriptBytes = 1 << 20 // one script
	maxTotalBytes  = 4 << 20 // all scripts re-parsed for one evaluation
	// maxParses and maxParseWork bound the parses of one evaluation by
	// their number and by their size times their rough nesting, which
	// the parser's work grows with: judging around a syntax error
	// re-parses the pieces, which may fail again, and "rm (((…" took 40
	// 000 small parses for 60 brackets, and seconds for 900, under the
	// byte budget. The test suites need fewer than 600 parses.
	maxParses    = 2048
	maxParseWork = 32 << 20
	maxCommands  = 10000
	maxDepth     = 64 // nesting of constructs and of wrappers/re-parses
	// maxRoughNesting bounds roughNesting before parsing: the parser
	// recurses once per nesting level and a deep enough input overflows
	// the goroutine stack, which is fatal, not a panic.
	maxRoughNesting = 1000
)

// roughNesting over-estimates how deeply src nests, ignoring quoting:
// brackets and compound-command keywords open and close levels, and
// prefixes like ! and time count until the end of the pipeline.
// On the way it guesses how many commands src holds, from the runs of
// separators (; newline & |) not part of a redirection (2>&1), for
// makeRoom.
func roughNesting(src string) (nesting, commands int) {
	depth, prefix, deepest := 0, 0, 0
	commands = 1
	for i := 0; i < len(src); i++ {
		switch roughClass[src[i]] {
		case roughOther:
			continue
		case roughOpen:
			depth++
		case roughClose:
			depth = max(depth-1, 0)
			continue
		case roughPrefix:
			prefix++
		case roughEnd:
			prefix = 0
			if i > 0 {
				if p := src[i-1]; roughClass[p] == roughEnd || p == '<' || p == '>' {
					continue
				}
			}
			commands++
			continue
		case roughLower:
			if i > 0 && isWordByte(src[i-1]) {
				continue
			}
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			w := src[i:j]
			i = j - 1
			// Compound-command keywords open and close a level.
			switch w {
			case "if", "while", "until", "case", "for", "select", "function", "coproc":
				depth++
			case "fi", "done", "esac":
				depth = max(depth-1, 0)
				continue
			case "time":
				prefix++
			default:
				continue
			}
		}
		// Only the cases that deepen get here.
		deepest = max(deepest, depth+prefix)
	}
	return deepest, commands
}

// Byte classes for roughNesting.
const (
	roughOther  = iota
	roughOpen   // ( { [
	roughClose  // ) } ]
	roughPrefix // !
	roughEnd    // ; newline & |: the end of a pipeline
	roughLower  // a-z: maybe the start of a keyword
)

// roughClass is the roughNesting class of every byte. A keyed array
// literal, so that the compiler lays it out and no start-up code fills it.
var roughClass = [256]uint8{
	'(': roughOpen, '{': roughOpen, '[': roughOpen,
	')': roughClose, '}': roughClose, ']': roughClose,
	'!': roughPrefix,
	';': roughEnd, '\n': roughEnd, '&': roughEnd, '|': roughEnd,
	'a': roughLower, 'b': roughLower, 'c': roughLower, 'd': roughLower, 'e': roughLower, 'f': roughLower, 'g': roughLower,
	'h': roughLower, 'i': roughLower, 'j': roughLower, 'k': roughLower, 'l': roughLower, 'm': roughLower, 'n': roughLower,
	'o': roughLower, 'p': roughLower, 'q': roughLower, 'r': roughLower, 's': roughLower, 't': roughLower, 'u': roughLower,
	'v': roughLower, 'w': roughLower, 'x': roughLower, 'y': roughLower, 'z': roughLower,
}

// isWordByte reports the bytes of a word for roughNesting: ASCII letters,
// digits, _ and -.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// script analyses one shell script at wrapper depth depth and returns its
// decision. Its commands and reasons go to a. A script for a shell other
// than bash is judged as bash reads it and, aside, as that shell does.
func (a *analysis) script(src string, depth int) Decision {
	if a.dialectOnly || a.lang == 0 || a.lang == syntax.LangBash {
		return a.scriptIn(a.lang, src, depth)
	}
	d := a.scriptIn(syntax.LangBash, src, depth)
	return Max(d, a.inDialect(src, depth))
}

// scriptIn is script for the dialect lang only.
func (a *analysis) scriptIn(lang syntax.LangVariant, src string, depth int) Decision {
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
	nesting, commands := roughNesting(src)
	if nesting > maxRoughNesting {
		return a.exhaust("nesting too deep to parse")
	}
	sp := a.spent
	sp.bytes += len(src)
	if sp.bytes > maxTotalBytes {
		return a.exhaust("re-parsed scripts larger than 4 MiB")
	}
	work := len(src) * max(nesting, 1)
	if sp.parses == maxParses || sp.work+work > maxParseWork {
		return a.exhaust("re-parsed too often")
	}
	sp.parses++
	sp.work += work
	// Scripts are parsed one after the other, never while another parse
	// runs, so one parser serves the whole evaluation. Comments are kept
	// only where lineQuirks needs them.
	quirks := hasLineQuirks(src)
	parser := a.scratch.shellParser(lang)
	if quirks && strings.Contains(src, "\\\n") {
		keepComments(parser)
	} else {
		dropComments(parser)
	}
	f, err := parser.Parse(strings.NewReader(src), "")
	if err != nil {
		heredocs := strings.Contains(src, "<<")
		if heredocs {
			if d, ok := a.respelled(lang, src, depth); ok {
				return d
			}
		}
		if fixed, ok := respellLoneBang(src, err); ok {
			return a.script(fixed, depth+1)
		}
		a.dynamic = true
		d := a.unanalysable("parse error: " + err.Error())
		d = Max(d, a.aroundSyntaxError(src, err, depth))
		if quirks {
			d = Max(d, a.lineQuirks(nil, src, depth))
		}
		if heredocs {
			d = Max(d, a.lexedHeredocs(src, depth))
		}
		if !utf8.ValidString(src) {
			// bash takes any byte in a word; mvdan.cc/sh refuses
			// invalid UTF-8. The script prompts already, so what a
			// reading of it with the bytes stood in for prompts for
			// (a shell reading stdin) belongs in the reasons too.
			d = Max(d, a.variantAt(Prompt, strings.ToValidUTF8(src, crStandIn), depth+1))
		}
		return Max(d, a.arithmSubshells(src, depth))
	}
	a.makeRoom(commands)
	// A script with heredocs may have to be judged again, rewritten, if
	// mvdan.cc/sh read one differently from bash: what this reading
	// recorded is then undone.
	var before analysisMark
	heredocs := strings.Contains(src, "<<")
	if heredocs {
		before = a.mark()
	}
	d := Decision(0)
	if len(f.Stmts) == 0 {
		d = a.unanalysable("empty script")
	}
	for _, s := range f.Stmts {
		d = Max(d, a.plainStmt(s, src))
	}
	wd, hdocs := a.walk(f, src, depth)
	d = Max(d, wd)
	if heredocs && len(hdocs) > 0 && !a.exhausted {
		if fixed, unsure := heredocCheck(f, src, hdocs); fixed != "" {
			a.rollback(before)
			return a.rejudgeHeredocs(lang, f, src, fixed, unsure, depth)
		}
	}
	if strings.Contains(src, ")#") {
		d = Max(d, a.arrayComments(f, src, depth))
	}
	if quirks {
		d = Max(d, a.lineQuirks(f, src, depth))
	}
	return d
}

// keepComments and dropComments set whether a parser keeps comments, made
// once rather than for every parse, in init: an initialiser must not call
// (statictables.go).
var keepComments, dropComments syntax.ParserOption

func init() {
	keepComments = syntax.KeepComments(true)
	dropComments = syntax.KeepComments(false)
}

// maxRoom bounds how many commands makeRoom makes room for.
const maxRoom = 256

// makeRoom grows the lists of commands and reasons once for the n commands
// roughNesting guessed a script holds, rather than many times over as they
// are found, and gives newArgv a chunk for their argvs. The guess is
// bounded so that a crafted script cannot make it large.
func (a *analysis) makeRoom(n int) {
	n = min(n, maxRoom)
	if words := min(3*n, maxArgvChunk); cap(a.argvs)-len(a.argvs) < words {
		a.argvs = make([]string, 0, words)
	}
	if cap(a.commands)-len(a.commands) < n {
		a.commands = slices.Grow(a.commands, n)
	}
	if cap(a.reasons)-len(a.reasons) < n {
		a.reasons = slices.Grow(a.reasons, n)
		a.reasonDecisions = slices.Grow(a.reasonDecisions, n)
	}
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
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		w := analyseWord(r.Word, src)
		if w.literal && (allDigits(w.value) || w.value == "-") {
			return 0
		}
		return a.unanalysable("write redirect to " + redirectTarget(r, src))
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		if w := analyseWord(r.Word, src); w.literal && w.value == "/dev/null" {
			return 0
		}
		return a.unanalysable("write redirect to " + redirectTarget(r, src))
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
		return a.unanalysable("input redirect from " + redirectTarget(r, src))
	}
	return a.unanalysable("redirect " + r.Op.String() + " " + redirectTarget(r, src))
}

// redirectTarget returns the source text of r's word, for a reason.
func redirectTarget(r *syntax.Redirect, src string) string {
	if r.Word == nil {
		return ""
	}
	return sourceOf(r.Word, src)
}

// analyseWords appends the analysed args to a.scratch.words and returns them. The
// caller truncates a.scratch.words back when done with them; commands analysed
// meanwhile (a script the words run) stack theirs above.
func (a *analysis) analyseWords(args []*syntax.Word, src string) []word {
	mark := len(a.scratch.words)
	for _, w := range args {
		a.scratch.words = append(a.scratch.words, analyseWord(w, src))
	}
	// The full slice expression keeps an append to the result from
	// writing over words stacked later.
	return a.scratch.words[mark:len(a.scratch.words):len(a.scratch.words)]
}

// hasInner reports whether w has a part other than a literal or a
// single-quoted string: one the walk must visit.
func hasInner(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return true
		}
	}
	return false
}

func isPipe(op syntax.BinCmdOperator) bool {
	return op == syntax.Pipe || op == syntax.PipeAll
}

// isPipeCmd reports whether n is a pipe: a | b or a |& b.
func isPipeCmd(n syntax.Node) bool {
	b, ok := n.(*syntax.BinaryCmd)
	return ok && isPipe(b.Op)
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

// downloaders and interpreters for the curl|sh floor entry: with every
// shell the analysis knows, the interpreters (python3 too, as programIn
// matches a version after the name).
var (
	downloaders      = []string{"curl", "wget"}
	pipeInterpreters = []string{"python", "perl", "ruby", "node"}
)

// pipeIntoShell reports a pipeline where a downloader's output reaches a
// shell or interpreter ("curl | sudo bash").
func (a *analysis) pipeIntoShell(b *syntax.BinaryCmd, src string) string {
	sawDownload := false
	if a.pipeStagesIntoShell(b.X, src, &sawDownload) || a.pipeStagesIntoShell(b.Y, src, &sawDownload) {
		return "download piped into a shell"
	}
	return ""
}

// pipeStagesIntoShell goes through the stages of the pipeline s, left to
// right, and reports a shell or interpreter after a downloader; *sawDownload
// carries whether one was seen in an earlier stage.
func (a *analysis) pipeStagesIntoShell(s *syntax.Stmt, src string, sawDownload *bool) bool {
	if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && isPipe(bc.Op) {
		return a.pipeStagesIntoShell(bc.X, src, sawDownload) || a.pipeStagesIntoShell(bc.Y, src, sawDownload)
	}
	prog := a.stageProgram(s, src)
	switch {
	case programIn(prog, downloaders):
		*sawDownload = true
	case *sawDownload && (programIn(prog, shells) || programIn(prog, pipeInterpreters)):
		return true
	}
	return false
}

// stageProgram returns the program a pipeline stage runs, seen through
// argv wrappers (sudo, env, ...).
func (a *analysis) stageProgram(s *syntax.Stmt, src string) string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return ""
	}
	// The common stage names its program with one plain literal.
	if parts := c.Args[0].Parts; len(parts) == 1 {
		if lit, ok := parts[0].(*syntax.Lit); ok && plainProgram(lit.Value) {
			if _, wrapped := lookupWrapper(lit.Value); !wrapped {
				return lit.Value
			}
		}
	}
	mark := len(a.scratch.words)
	defer func() { a.scratch.words = a.scratch.words[:mark] }()
	if ws := innerArgv(a.analyseWords(c.Args, src)); ws != nil {
		return ws[0].value
	}
	return ""
}

// innerArgv returns the argv that ws runs once the argv wrappers in front
// of it (sudo, env, ...) are seen through: ws itself when ws[0] is no such
// wrapper, or the innermost wrapper when it runs nothing. It returns nil
// when a command word is not static or wrappers nest deeper than maxDepth.
func innerArgv(ws []word) []word {
	for range maxDepth {
		if len(ws) == 0 || !ws[0].static {
			return nil
		}
		spec, ok := lookupWrapper(ws[0].value)
		if !ok || spec.kind != runsArgv {
			return ws
		}
		u := unwrap(spec, ws)
		if len(u.argvs) == 0 {
			return ws
		}
		ws = u.argvs[0]
	}
	return nil
}

// plainProgram reports whether lit, an unquoted literal, is a program
// name as it stands: not empty and free of escapes, globs, braces and
// tildes.
func plainProgram(lit string) bool {
	for i := 0; i < len(lit); i++ {
		switch lit[i] {
		case '\\', '*', '?', '[', '{', '~':
			return false
		}
	}
	return lit != ""
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
// its script from stdin (sh <<< 'curl ...', "sh" <<< ..., sudo sh <<< ...),
// so that a forbidden command there is seen and the command allows only
// when every command of that script does.
func (a *analysis) shellStdin(s *syntax.Stmt, src string, depth int) Decision {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(s.Redirs) == 0 {
		return 0
	}
	// The shell is named as the command runs it: by its value, not its
	// spelling, and through wrappers, as command judges it.
	mark := len(a.scratch.words)
	defer func() { a.scratch.words = a.scratch.words[:mark] }()
	ws := innerArgv(a.analyseWords(c.Args, src))
	if ws == nil {
		return 0
	}
	if spec, ok := lookupWrapper(ws[0].value); !ok || !unwrap(spec, ws).stdinScript {
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
			saved := a.lang
			a.lang = shellLang(ws[0].value)
			d = Max(d, a.script(w.value, depth+1))
			a.lang = saved
		}
	}
	return d
}

// respellLoneBang returns src with the "!" err points at, which mvdan.cc/sh
// refuses alone, spelled "! :": bash takes a lone "!" before a list
// terminator as a negated empty pipeline (status 1, as "! :"), and runs
// the rest of the script, which is then judged as it runs.
func respellLoneBang(src string, err error) (string, bool) {
	var pe syntax.ParseError
	if !errors.As(err, &pe) || !pe.Pos.IsValid() || !strings.Contains(pe.Text, "cannot form a statement alone") {
		return "", false
	}
	off, ok := byteOffset(src, pe.Pos)
	if !ok || off >= len(src) || src[off] != '!' {
		return "", false
	}
	return src[:off] + "! :" + src[off+1:], true
}

// byteOffset is the offset in src of pos (1-based line and byte column).
func byteOffset(src string, pos syntax.Pos) (int, bool) {
	off := 0
	for range int(pos.Line()) - 1 {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return min(off+int(pos.Col())-1, len(src)), true
}

// aroundSyntaxError judges, for what it finds forbidden, the text on
// either side of the point where mvdan.cc/sh stopped at err. bash may
// run either side: when it too finds the script broken, it has run every
// command complete before the error's line; when the error is
// mvdan.cc/sh's alone, it runs the rest as well. Each side is shorter than src, and
// one that does not parse either is split again, a level deeper: the
// nesting and parse budgets bound the whole.
func (a *analysis) aroundSyntaxError(src string, err error, depth int) Decision {
	var pe syntax.ParseError
	if !errors.As(err, &pe) || !pe.Pos.IsValid() {
		return 0
	}
	off, ok := byteOffset(src, pe.Pos)
	if !ok {
		return 0
	}
	d := Decision(0)
	if left := src[:off]; strings.TrimSpace(left) != "" {
		d = Max(d, a.forbiddenIn(left, depth+1))
	}
	if off < len(src) {
		// Past the whole character: a cut one would be invalid UTF-8,
		// which is judged again spelled validly, and no shorter.
		_, size := utf8.DecodeRuneInString(src[off:])
		if right := src[off+size:]; strings.TrimSpace(right) != "" {
			d = Max(d, a.forbiddenIn(right, depth+1))
		}
	}
	return d
}
