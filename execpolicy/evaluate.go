package execpolicy

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
)

// EvalOptions tunes Evaluate.
type EvalOptions struct {
	// ResolveHostExecutables enables the basename fallback for absolute
	// program paths (DESIGN §3 "Host executables").
	ResolveHostExecutables bool
	// Shell says that argv[0] is a script, as given to run --shell; the
	// rest of argv are its positional parameters.
	Shell bool
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
	a := &analysis{p: p, match: MatchOptions{ResolveHostExecutables: opts.ResolveHostExecutables}, safe: true}
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
	if a.allowProfiles != nil && len(a.allowProfiles) > 1 {
		names := slices.Sorted(mapsKeys(a.allowProfiles))
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
	ev.Commands = a.commands
	ev.Dynamic = a.dynamic
	ev.Dangerous = a.dangerous
	ev.KnownSafe = a.safe && !a.dangerous && !a.nonPlain && d != Forbidden && len(a.commands) > 0
	if d != Allow {
		slices.SortStableFunc(a.reasons, func(x, y reasonAt) int {
			return cmp.Or(cmp.Compare(y.d, x.d), cmp.Compare(kindRank(x.r.Kind), kindRank(y.r.Kind)))
		})
		for _, r := range a.reasons {
			ev.Reasons = append(ev.Reasons, r.r)
		}
	}
	return ev
}

// topLevelScript returns the script of SHELL [opts] -c SCRIPT.
func topLevelScript(ws []word) (string, bool) {
	if !slices.Contains(shells, path.Base(ws[0].value)) {
		return "", false
	}
	u := unwrap(shellWrapper, ws)
	if len(u.scripts) != 1 || u.uncertain != "" {
		return "", false
	}
	return u.scripts[0].value, true
}

// analysis accumulates what one Evaluate finds.
type analysis struct {
	p             *Policy
	match         MatchOptions
	commands      []Command
	reasons       []reasonAt
	allowProfiles map[string]bool
	dynamic       bool
	dangerous     bool
	safe          bool // every command so far is known safe
	nonPlain      bool // something outside the plain subset was seen
	exhausted     bool
	parsed        int
	ncommands     int
}

// reasonAt is a reason with the decision it stands for, for ordering.
type reasonAt struct {
	r Reason
	d Decision
}

func kindRank(k ReasonKind) int {
	return slices.Index([]ReasonKind{ReasonRule, ReasonDangerous, ReasonUnanalysable, ReasonUnmatched}, k)
}

func (a *analysis) reason(kind ReasonKind, d Decision, detail string) Decision {
	r := reasonAt{Reason{Kind: kind, Detail: detail}, d}
	if !slices.Contains(a.reasons, r) {
		a.reasons = append(a.reasons, r)
	}
	return d
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
	detail := fmt.Sprintf("%s rule %s", m.Decision, strings.Join(m.MatchedPrefix, " "))
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

// command judges one simple command (with its wrapped commands) and
// records it.
func (a *analysis) command(ws []word, depth int) Decision {
	if a.exhausted {
		return Prompt
	}
	a.ncommands++
	if a.ncommands > maxCommands {
		return a.exhaust("more than 10000 commands")
	}
	if depth > maxDepth {
		return a.exhaust("wrappers nested deeper than 64")
	}
	argv := make([]string, len(ws))
	dyn := false
	for i, w := range ws {
		argv[i] = w.text()
		dyn = dyn || !w.literal
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
	ms := a.matches(ws)
	a.commands[idx].Matches = ms
	d = Strictest(ms)
	switch d {
	case 0:
		d = a.reason(ReasonUnmatched, Prompt, strings.Join(argv, " "))
	case Allow:
		if dyn {
			d = a.unanalysable("dynamic word in " + strings.Join(argv, " "))
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
	if name := dangerous(ws); name != "" {
		d = Max(d, a.danger(name+": "+strings.Join(argv, " ")))
	}
	if dyn || !knownSafe(argv) {
		a.safe = false
	}
	if spec, ok := lookupWrapper(ws[0].value); ok {
		d = Max(d, a.wrapped(spec, ws, depth+1))
	}
	a.commands[idx].Decision = Max(a.commands[idx].Decision, d)
	return d
}

// wrapped judges what the wrapper at ws[0] runs.
func (a *analysis) wrapped(spec wrapper, ws []word, depth int) Decision {
	u := unwrap(spec, ws)
	d := Decision(0)
	if u.uncertain != "" {
		d = a.unanalysable(ws[0].value + ": " + u.uncertain)
		d = Max(d, a.probe(ws, depth))
	}
	for _, inner := range u.argvs {
		d = Max(d, a.command(inner, depth))
	}
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
		sub := &analysis{p: a.p, match: a.match, parsed: a.parsed, ncommands: a.ncommands}
		if sub.command(ws[i:], depth) == Forbidden {
			for _, r := range sub.reasons {
				if r.d == Forbidden {
					d = a.reason(r.r.Kind, r.d, r.r.Detail)
				}
			}
		}
		a.ncommands = sub.ncommands
		a.parsed = sub.parsed
	}
	return d
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
