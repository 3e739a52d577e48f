package execpolicy

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// EvalOptions tunes Evaluate.
type EvalOptions struct {
	// ResolveHostExecutables enables the basename fallback for absolute
	// program paths (DESIGN §3 "Host executables").
	ResolveHostExecutables bool
	// Shell says that argv[0] is a script, as given to run --shell; the
	// rest of argv are its positional parameters.
	Shell bool
	// AgentTerminal says the command's terminal is an agent's, which the
	// model types into (gate.Config.AgentTerminal): a program that takes
	// commands from its terminal (terminalReaders) is then judged as one
	// reading them from stdin.
	AgentTerminal bool
}

// Evaluate judges argv under p by the strict, asymmetric semantics of
// DESIGN §3: a command is forbidden when any command it runs, also through
// wrappers, matches a forbidden rule; allowed only when it is plain and
// every command matches an allow rule by its exact command word; prompt
// otherwise.
//
// An argv of the form SHELL -c SCRIPT (or opts.Shell) is judged by its
// script; the rules matching the argv itself can only make it stricter.
//
// Profile: every allow rule that decided a command must name the same
// profile (the default, "", counts as one). When they differ the command
// prompts as unanalysable instead of guessing which sandbox is stricter:
// running every command under the most permissive profile would hand
// network or write access to commands that were allowed without it.
//
// Reasons are ordered most severe first (by the decision each stands for,
// then rule, dangerous, unanalysable, unmatched), so Reasons[0] explains
// the decision.
func (p *Policy) Evaluate(argv []string, opts EvalOptions) Evaluation {
	a := newAnalysis(p, MatchOptions{ResolveHostExecutables: opts.ResolveHostExecutables}, p.scratch.get())
	a.agentTerminal = opts.AgentTerminal
	defer p.scratch.put(a.scratch)
	ev := Evaluation{Matched: p.MatchArgv(argv, a.match)}
	var d Decision
	switch {
	case len(argv) == 0:
		d = a.unanalysable("empty command")
	case opts.Shell:
		d = a.script(argv[0], 0)
	default:
		ws := literalWords(argv)
		if script, ok := topLevelScript(ws); ok {
			// The shell's own rules still count; its allow or the lack
			// of one does not: the script decides.
			for _, m := range a.matches(ws) {
				if m.Decision > Allow {
					d = Max(d, a.ruleReason(m))
				}
			}
			a.lang = shellLang(argv[0])
			d = Max(d, a.script(script, 0))
		} else {
			d = a.command(ws, 0)
		}
	}
	for _, s := range argv {
		if strings.IndexByte(s, 0) >= 0 {
			d = Max(d, a.unanalysable("NUL byte in argument"))
		}
	}
	if len(a.allowProfiles) > 1 {
		names := slices.Sorted(maps.Keys(a.allowProfiles))
		d = Max(d, a.unanalysable("commands ask for different profiles: "+strings.Join(quoteAll(names), ", ")))
	} else {
		for name := range a.allowProfiles {
			ev.Profile = name
		}
	}
	if d == 0 {
		d = a.unanalysable("nothing to run")
	}
	ev.Decision = d
	if len(a.commands) > 0 {
		ev.Commands = a.commands // else nil, though script made room
	}
	ev.Dynamic = a.dynamic
	ev.Variables = a.variables
	ev.Dangerous = a.dangerous
	ev.KnownSafe = a.safe && !a.dangerous && !a.nonPlain && d != Forbidden && len(a.commands) > 0
	if d != Allow && len(a.reasons) > 0 {
		ev.Reasons = sortReasons(a.reasons, a.reasonDecisions)
	}
	return ev
}

// sortReasons orders reasons most severe first: by the decision each stands
// for (decisions[i] for reasons[i]), then by kind, keeping the order found
// among equals. It sorts reasons and decisions in place.
func sortReasons(reasons []Reason, decisions []Decision) []Reason {
	o := reasonOrder{reasons, decisions}
	if len(reasons) > 64 {
		sort.Stable(o)
		return reasons
	}
	// An insertion sort, stable too, is quicker for the few reasons of
	// most commands.
	for i := 1; i < len(reasons); i++ {
		for j := i; j > 0 && o.Less(j, j-1); j-- {
			o.Swap(j, j-1)
		}
	}
	return reasons
}

// reasonOrder sorts reasons, with the decisions each stands for alongside,
// most severe first.
type reasonOrder struct {
	reasons   []Reason
	decisions []Decision
}

func (o reasonOrder) Len() int { return len(o.reasons) }

func (o reasonOrder) Less(i, j int) bool {
	return cmp.Or(cmp.Compare(o.decisions[j], o.decisions[i]), cmp.Compare(kindRank(o.reasons[i].Kind), kindRank(o.reasons[j].Kind))) < 0
}

func (o reasonOrder) Swap(i, j int) {
	o.reasons[i], o.reasons[j] = o.reasons[j], o.reasons[i]
	o.decisions[i], o.decisions[j] = o.decisions[j], o.decisions[i]
}

// topLevelScript returns the script of SHELL [opts] -c SCRIPT.
func topLevelScript(ws []word) (string, bool) {
	if !slices.Contains(shells, path.Base(ws[0].value)) {
		return "", false
	}
	u := unwrap(&shellWrapper, ws)
	if len(u.scripts) != 1 || u.uncertain != "" || u.scriptFile != nil || u.unplain != "" {
		return "", false
	}
	return u.scripts[0].value, true
}

// analysis accumulates what one Evaluate finds.
type analysis struct {
	p        *Policy
	match    MatchOptions
	commands []Command
	// reasons are the reasons found, reasonDecisions the decision each
	// stands for, for ordering.
	reasons         []Reason
	reasonDecisions []Decision
	allowProfiles   map[string]bool
	dynamic         bool
	dangerous       bool
	safe            bool // every command so far is known safe
	nonPlain        bool // something outside the plain subset was seen
	exhausted       bool
	// lang is the dialect of the shell running the script being judged;
	// 0 means bash. dialectOnly says that a's scripts are judged in their
	// dialect only, as the aside of inDialect, their bash reading being
	// judged already.
	lang        syntax.LangVariant
	dialectOnly bool
	// agentTerminal is EvalOptions.AgentTerminal.
	agentTerminal bool
	// spent is what the evaluation has used of its budgets: the analyses
	// an aside runs share it, so that none starts them afresh. own holds
	// it for the analysis that newAnalysis made.
	spent *spent
	own   spent
	// hdocRounds counts the scripts rewritten for their heredocs.
	hdocRounds int
	// hdocLexed says the script being judged is one lexedHeredocs
	// rewrote: it is not rewritten so again.
	hdocLexed bool
	// scratch holds the parser, which parses every script of the
	// evaluation one after the other, and the stack of the words of the
	// commands being judged, reused from one command to the next (see
	// analyseWords).
	scratch *scratch
	// argvs is the chunk newArgv cuts recorded argvs from.
	argvs []string
	// reasonSeen has the reasonBit of every reason recorded.
	reasonSeen [4]uint64
	// variables are the variables found set (see Evaluation.Variables).
	variables []string
}

func kindRank(k ReasonKind) int {
	switch k {
	case ReasonRule:
		return 0
	case ReasonDangerous:
		return 1
	case ReasonUnanalysable:
		return 2
	case ReasonUnmatched:
		return 3
	}
	return -1
}

func (a *analysis) reason(kind ReasonKind, d Decision, detail string) Decision {
	i, bit := reasonBit(kind, d, detail)
	if a.reasonSeen[i]&bit != 0 {
		for j := range a.reasons {
			if r := &a.reasons[j]; a.reasonDecisions[j] == d && r.Detail == detail && r.Kind == kind {
				return d
			}
		}
	}
	a.reasonSeen[i] |= bit
	a.reasons = append(a.reasons, Reason{Kind: kind, Detail: detail})
	a.reasonDecisions = append(a.reasonDecisions, d)
	return d
}

// reasonBit picks the bit of analysis.reasonSeen for a reason. Equal
// reasons share a bit, so a clear bit means the reason is new and the
// search for a duplicate can be skipped.
func reasonBit(kind ReasonKind, d Decision, detail string) (int, uint64) {
	h := uint(len(detail))*151 + uint(len(kind))*7 + uint(d)*3
	if n := len(detail); n > 0 {
		h += uint(detail[n-1])*131 + uint(detail[n/2])*17
	}
	h &= 255
	return int(h >> 6), 1 << (h & 63)
}

// unanalysable records that the command is outside what the analysis can
// allow.
func (a *analysis) unanalysable(detail string) Decision {
	a.nonPlain = true
	a.safe = false
	return a.reason(ReasonUnanalysable, Prompt, detail)
}

// exhaust records a spent budget; the analysis stops descending.
func (a *analysis) exhaust(detail string) Decision {
	a.exhausted = true
	a.dynamic = true
	return a.unanalysable(detail)
}

func (a *analysis) danger(name string) Decision {
	a.dangerous = true
	a.safe = false
	return a.reason(ReasonDangerous, Prompt, name)
}

func (a *analysis) ruleReason(m RuleMatch) Decision {
	detail := m.Decision.String() + " rule " + strings.Join(m.MatchedPrefix, " ")
	if m.Source != "" {
		detail += " (" + m.Source + ")"
	}
	return a.reason(ReasonRule, m.Decision, detail)
}

// matches returns the rules matching the static prefix of ws: exact
// matches (allow only by the exact command word), plus prompt and forbidden
// rules of the basename when the command word is a path.
func (a *analysis) matches(ws []word) []RuleMatch {
	argv := make([]string, 0, len(ws))
	for _, w := range ws {
		if !w.static {
			break
		}
		argv = append(argv, w.value)
	}
	return a.matchesArgv(argv)
}

// matchesArgv is matches for the static prefix argv, which it does not
// modify.
func (a *analysis) matchesArgv(argv []string) []RuleMatch {
	ms := a.p.MatchArgv(argv, a.match)
	if len(argv) == 0 || !strings.Contains(argv[0], "/") {
		return ms
	}
	for _, m := range ms {
		if m.ResolvedProgram != "" {
			return ms
		}
	}
	base := slices.Clone(argv)
	base[0] = path.Base(argv[0])
	for _, m := range a.p.MatchArgv(base, MatchOptions{}) {
		if m.Decision > Allow {
			m.ResolvedProgram = argv[0]
			ms = append(ms, m)
		}
	}
	return ms
}

// spent counts what one evaluation has used of the budgets of shell.go.
type spent struct {
	bytes    int // of the scripts parsed
	parses   int
	work     int // the parses' size times nesting
	commands int
}

// newAnalysis starts the analysis of one evaluation, with nothing spent.
func newAnalysis(p *Policy, match MatchOptions, sc *scratch) *analysis {
	a := &analysis{p: p, match: match, safe: true, scratch: sc}
	a.spent = &a.own
	return a
}

// command judges one simple command (with its wrapped commands) and
// records it.
func (a *analysis) command(ws []word, depth int) Decision {
	if a.exhausted {
		return Prompt
	}
	a.spent.commands++
	if a.spent.commands > maxCommands {
		return a.exhaust("more than 10000 commands")
	}
	if depth > maxDepth {
		return a.exhaust("wrappers nested deeper than 64")
	}
	argv := a.newArgv(len(ws))
	dyn := false
	nstatic := len(ws) // the static prefix, which the rules match
	for i, w := range ws {
		argv[i] = w.text()
		dyn = dyn || !w.literal
		if !w.static && nstatic == len(ws) {
			nstatic = i
		}
	}
	idx := len(a.commands)
	a.commands = append(a.commands, Command{Argv: argv, Dynamic: dyn})
	if dyn {
		a.dynamic = true
	}
	var d Decision
	if !ws[0].literal {
		d = a.unanalysable("dynamic command word " + ws[0].src)
		a.commands[idx].Decision = d
		return d
	}
	// A static word's text is its value: argv[:nstatic] is the prefix
	// matches(ws) would build.
	ms := a.matchesArgv(argv[:nstatic])
	a.commands[idx].Matches = ms
	d = Strictest(ms)
	switch d {
	case 0:
		d = a.reason(ReasonUnmatched, Prompt, QuoteArgv(argv))
	case Allow:
		if dyn {
			d = a.unanalysable("dynamic word in " + QuoteArgv(argv))
		}
		if a.allowProfiles == nil {
			a.allowProfiles = map[string]bool{}
		}
		for _, m := range ms {
			a.allowProfiles[m.Profile] = true
		}
	default:
		for _, m := range ms {
			if m.Decision == d {
				a.ruleReason(m)
			}
		}
	}
	// One lookup for the floor, the known-safe list and the wrappers.
	prog := path.Base(ws[0].value)
	facts := lookupProgram(prog)
	if facts.exec == nil && strings.IndexByte(prog, '-') > 0 {
		facts.exec = toolchainExecOptions(prog)
	}
	if name := dangerousAmong(ws, prog, facts.danger); name != "" {
		d = Max(d, a.danger(name+": "+QuoteArgv(argv)))
	}
	// The known-safe list names programs exactly, not by path. Once one
	// command is not known safe, the evaluation is not, whatever the rest.
	if a.safe && (dyn || argv[0] != prog || !knownSafeAmong(argv, facts.safe)) {
		a.safe = false
	}
	if facts.builtin != nil && argv[0] == prog {
		d = Max(d, facts.builtin(a, ws, depth+1))
	}
	if facts.exec != nil {
		d = Max(d, a.execOptionsIn(facts.exec, ws, depth+1))
	}
	if facts.wrapper != nil {
		d = Max(d, a.wrapped(facts.wrapper, ws, depth+1))
	}
	if a.agentTerminal && readsTerminal(ws) {
		d = Max(d, a.unanalysable(ws[0].value+": takes commands from the agent's terminal"))
	}
	a.commands[idx].Decision = Max(a.commands[idx].Decision, d)
	return d
}

// maxArgvChunk bounds the chunks newArgv allocates, in strings.
const maxArgvChunk = 256

// newArgv returns a zeroed argv of n strings for a recorded command. The
// argvs of one evaluation are cut from shared chunks (see makeRoom), each
// new one twice the size of the one before, rather than allocated one by
// one; each argv is capped at its length, so appending to one never writes
// into another.
func (a *analysis) newArgv(n int) []string {
	if n > cap(a.argvs)-len(a.argvs) {
		size := min(max(2*cap(a.argvs), 16), maxArgvChunk)
		if n > size/8 {
			// A lone command, or a long one: no chunk for it.
			return make([]string, n)
		}
		a.argvs = make([]string, 0, size)
	}
	i := len(a.argvs)
	a.argvs = a.argvs[:i+n]
	return a.argvs[i : i+n : i+n]
}

// programFacts is what the built-in tables say about one program
// basename, as lookupProgram (programs_gen.go) finds it.
type programFacts struct {
	wrapper *wrapper     // as lookupWrapper
	danger  []int        // the dangerFloor entries naming it exactly, its row of dangerIndex
	safe    []safeEntry  // its knownSafeList entries
	builtin builtinCheck // its shellBuiltins check
	exec    *execOptions // its programExecOptions
}

// wrapped judges what the wrapper at ws[0] runs.
func (a *analysis) wrapped(spec *wrapper, ws []word, depth int) Decision {
	u := unwrap(spec, ws)
	d := Decision(0)
	if u.uncertain != "" {
		d = a.unanalysable(ws[0].value + ": " + u.uncertain)
		d = Max(d, a.probe(ws, depth))
	}
	if u.stdinScript {
		// Even a heredoc there, which shellStdin analyses for what it
		// runs, leaves the command unanalysable (DESIGN: a shell fed from
		// stdin is never plain).
		d = Max(d, a.unanalysable(ws[0].value+": reads its commands from stdin"))
	}
	if u.scriptFile != nil {
		d = Max(d, a.unanalysable(ws[0].value+": runs the script file "+u.scriptFile.src))
	}
	if u.unplain != "" {
		d = Max(d, a.unanalysable(ws[0].value+": "+u.unplain))
	}
	if u.clears != "" && a.agentTerminal {
		d = Max(d, a.unanalysable(ws[0].value+" "+u.clears+": unsets variables of the environment, which on an agent's terminal sets its pagers"))
	}
	if to := u.inputArgsTo; to != nil && !takesAnyArguments(to) {
		d = Max(d, a.unanalysable(ws[0].value+": adds words of its input to the arguments of "+to.src))
	}
	for _, v := range u.sets {
		a.sets(v)
	}
	for _, inner := range u.argvs {
		d = Max(d, a.command(inner, depth))
	}
	// The scripts run in the dialect of the shell that runs them: eval's
	// and trap's in the current one.
	saved := a.lang
	defer func() { a.lang = saved }()
	a.lang = scriptLang(spec, ws[0].value, saved)
	for _, s := range u.scripts {
		if !s.static {
			a.dynamic = true
			d = Max(d, a.unanalysable("dynamic script "+s.src))
			continue
		}
		if !s.literal {
			d = Max(d, a.unanalysable("script with expansions "+s.src))
		}
		d = Max(d, a.script(s.value, depth))
	}
	return d
}

// probe looks for a forbidden command at every operand of a wrapper whose
// options were not understood, so that an unknown option cannot hide one.
func (a *analysis) probe(ws []word, depth int) Decision {
	d := Decision(0)
	for i := 1; i < len(ws) && i <= 8; i++ {
		if !ws[i].static || strings.HasPrefix(ws[i].value, "-") {
			continue
		}
		d = Max(d, a.aside(Forbidden, func(sub *analysis) Decision { return sub.command(ws[i:], depth) }))
	}
	return d
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
