package execpolicy

import (
	"slices"
	"strings"
	"testing"
)

func hasReason(ev Evaluation, kind ReasonKind, detail string) bool {
	for _, r := range ev.Reasons {
		if r.Kind == kind && strings.Contains(r.Detail, detail) {
			return true
		}
	}
	return false
}

func TestEvaluatePlainArgv(t *testing.T) {
	p := corpusPolicy()
	tests := []struct {
		argv []string
		want Decision
		kind ReasonKind // expected reason kind, "" for allow
	}{
		{[]string{"ls", "*"}, Allow, ""}, // execve does not glob
		{[]string{"ls", "$(rm -rf /)"}, Allow, ""},
		{[]string{"git", "status"}, Allow, ""},
		{[]string{"sudo", "rm", "-rf", "/"}, Forbidden, ReasonRule},
		{[]string{"/usr/bin/rm", "x"}, Forbidden, ReasonRule},
		{[]string{"/bin/ls"}, Prompt, ReasonUnmatched},
		{[]string{"env", "ls"}, Prompt, ReasonUnmatched},
		{[]string{"env", "-i", "FOO=1", "curl", "x"}, Forbidden, ReasonRule},
		{[]string{"git", "push"}, Prompt, ReasonRule},
		{[]string{"make"}, Prompt, ReasonUnmatched},
		{[]string{"bash", "-lc", "git status"}, Allow, ""},
		{[]string{"/bin/bash", "-ec", "ls; echo hi"}, Allow, ""},
		{[]string{"bash", "-lc", "ls > out"}, Prompt, ReasonUnanalysable},
		{[]string{"bash", "script.sh"}, Prompt, ReasonUnmatched},
		{[]string{"bash", "-l", "-c", "rm x"}, Forbidden, ReasonRule},
		{[]string{"sh", "-c", "ls\x00"}, Prompt, ReasonUnanalysable},
		{[]string{"ls", "a\x00b"}, Prompt, ReasonUnanalysable},
		{[]string{}, Prompt, ReasonUnanalysable},
		{[]string{"bash", "-c", ""}, Prompt, ReasonUnanalysable},
		{[]string{"sudo", "--frobnicate", "rm", "x"}, Forbidden, ReasonRule}, // unknown option: probed
		{[]string{"sudo", "--frobnicate", "ls"}, Prompt, ReasonUnanalysable},
		{[]string{"ls", "-la"}, Allow, ""},
	}
	for _, tt := range tests {
		ev := p.Evaluate(tt.argv, EvalOptions{})
		if ev.Decision != tt.want {
			t.Errorf("Evaluate(%q) = %v, want %v; reasons %v", tt.argv, ev.Decision, tt.want, ev.Reasons)
			continue
		}
		if tt.kind != "" && !hasReason(ev, tt.kind, "") {
			t.Errorf("Evaluate(%q): reasons %v lack kind %s", tt.argv, ev.Reasons, tt.kind)
		}
	}
}

func TestEvaluateForbiddenBashRule(t *testing.T) {
	p := corpusPolicy()
	p.AddPrefixRule(PrefixRule{Program: "bash", Decision: Forbidden, Source: "x.rules:1:1"})
	ev := p.Evaluate([]string{"bash", "-c", "ls"}, EvalOptions{})
	if ev.Decision != Forbidden || !hasReason(ev, ReasonRule, "x.rules:1:1") {
		t.Fatalf("got %v %v, want forbidden by the bash rule", ev.Decision, ev.Reasons)
	}
	if len(ev.Matched) != 1 || ev.Matched[0].MatchedPrefix[0] != "bash" {
		t.Errorf("Matched = %+v, want the bash rule", ev.Matched)
	}
}

// TestEvaluateAroundSyntaxError: a script mvdan.cc/sh cannot parse is
// unanalysable, and forbidden when a forbidden command lies on either
// side of the error, since bash may run it: the commands before the
// error's line always (bash -c stops at a syntax error only there), and
// the rest too when bash takes what mvdan.cc/sh refused (a lone "!").
func TestEvaluateAroundSyntaxError(t *testing.T) {
	tests := []scriptDecision{
		{"rm x\n!", Forbidden},
		{"ls\n!\nrm x", Forbidden},               // bash runs all three
		{"rm x; !", Forbidden},                   // so does it here
		{"if true\nthen rm x\n!\nfi", Forbidden}, // and here
		{"ls\nrm x\n(\n", Forbidden},
		{"rm x\necho 'open\n", Forbidden},
		{"ls\nrm x\nif true\n!\n", Forbidden},
		{"ls\n!\necho hi", Prompt},
		{"ls &&", Prompt},
		// A substitution that does not parse in an unquoted heredoc body:
		// bash reads the body to its delimiter first and runs the lines
		// after it, which the nested heredoc would hide (FuzzAnalyseVsBash).
		{"<<EOF\n`<<'#Y'\nEOF\nrm \n#Y", Forbidden},
		{"cat <<EOF\n`<<Y\nEOF\nrm x\nY", Forbidden},
		{"cat <<EOF\n$(rm x)\n`<<Y\nEOF\necho\nY", Forbidden},
		{"cat <<EOF\n`<<Y\nEOF\necho\nY", Prompt},
	}
	wantScriptDecisions(t, corpusPolicy(), tests)
}

// TestEvaluateReparseBudget: judging around syntax errors re-parses the
// pieces, and brackets that never close make every piece fail again:
// "rm 0 0 0 (((…" with 60 of them took some 40 000 parses (a FuzzAnalyse
// input that hung CI's fuzzing), and seconds with hundreds. The parse
// budgets end it, counted here, and the rm found first still forbids.
func TestEvaluateReparseBudget(t *testing.T) {
	p := corpusPolicy()
	for _, n := range []int{60, 200, 900} {
		script := "rm 0 0 0 " + strings.Repeat("(", n)
		a := newAnalysis(p, MatchOptions{}, p.scratch.get())
		d := a.script(script, 0)
		p.scratch.put(a.scratch)
		if d != Forbidden {
			t.Errorf("%d brackets: %v, want forbidden (rm)", n, d)
		}
		if sp := a.spent; sp.parses > maxParses || sp.work > maxParseWork {
			t.Errorf("%d brackets: %d parses, work %d: over the budgets (%d, %d)", n, sp.parses, sp.work, maxParses, maxParseWork)
		}
	}
}

// TestEvaluateOddAssignment: GNU env takes any operand holding "=" for an
// assignment, a name or not, and runs the word after it (env = rm runs
// rm; FuzzAnalyseVsBash); other readings take that operand for the
// command. Both are judged, past the probe's first eight words too.
func TestEvaluateOddAssignment(t *testing.T) {
	tests := []scriptDecision{
		{"env = rm x", Forbidden},
		{"env 1a=b ./x=y rm x", Forbidden},
		{"env =a =b =c =d =e =f =g =h =i =j rm x", Forbidden},
		{"env -- = rm x", Forbidden},
		{"env A=1 -- =b rm x", Forbidden},
		{"sudo =x rm x", Forbidden},
		{"env = ls", Prompt},
		{"sudo =x ls", Prompt},
		{"env A=1 ls", Prompt},
		{"env '' rm x", Prompt}, // env runs '', which fails
	}
	wantScriptDecisions(t, corpusPolicy(), tests)
}

func TestEvaluateDetails(t *testing.T) {
	p := corpusPolicy()
	tests := []struct {
		script string
		kind   ReasonKind
		detail string
	}{
		{"ls &", ReasonUnanalysable, "background job"},
		{"echo hi > out.txt", ReasonUnanalysable, "write redirect to out.txt"},
		{"ls &&", ReasonUnanalysable, "parse error"},
		{"$X ls", ReasonUnanalysable, "dynamic command word $X"},
		{"make test", ReasonUnmatched, "make test"},
		{"git push", ReasonRule, "corpus:7"},
		{"rm x", ReasonRule, "forbidden rule rm (corpus:5)"},
	}
	for _, tt := range tests {
		ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
		if !hasReason(ev, tt.kind, tt.detail) {
			t.Errorf("%q: reasons %v, want %s %q", tt.script, ev.Reasons, tt.kind, tt.detail)
		}
	}
}

func TestEvaluateCommands(t *testing.T) {
	p := corpusPolicy()
	ev := p.Evaluate([]string{"bash", "-c", `ls "$HOME" | cat && echo $(git status)`}, EvalOptions{})
	var argvs []string
	for _, c := range ev.Commands {
		argvs = append(argvs, strings.Join(c.Argv, " "))
	}
	want := []string{`ls "$HOME"`, "cat", "echo $(git status)", "git status"}
	if !slices.Equal(argvs, want) {
		t.Fatalf("Commands = %q, want %q", argvs, want)
	}
	if !ev.Commands[0].Dynamic || ev.Commands[1].Dynamic || !ev.Dynamic {
		t.Errorf("Dynamic flags wrong: %+v", ev.Commands)
	}
	if ev.Commands[1].Decision != Allow || len(ev.Commands[1].Matches) != 1 {
		t.Errorf("cat: %+v", ev.Commands[1])
	}
	if ev.Decision != Prompt {
		t.Errorf("decision %v, want prompt", ev.Decision)
	}
}

func TestEvaluateProfile(t *testing.T) {
	p := NewPolicy()
	p.AddPrefixRule(PrefixRule{Program: "npm", Rest: [][]string{{"ci"}}, Decision: Allow, Profile: "net"})
	p.AddPrefixRule(PrefixRule{Program: "npm", Rest: [][]string{{"test"}}, Decision: Allow, Profile: "net"})
	p.AddPrefixRule(PrefixRule{Program: "ls", Decision: Allow})
	ev := p.Evaluate([]string{"bash", "-c", "npm ci && npm test"}, EvalOptions{})
	if ev.Decision != Allow || ev.Profile != "net" {
		t.Errorf("same profile: %v %q %v", ev.Decision, ev.Profile, ev.Reasons)
	}
	ev = p.Evaluate([]string{"bash", "-c", "npm ci && ls"}, EvalOptions{})
	if ev.Decision != Prompt || !hasReason(ev, ReasonUnanalysable, "different profiles") {
		t.Errorf("mixed profiles: %v %v", ev.Decision, ev.Reasons)
	}
	ev = p.Evaluate([]string{"ls"}, EvalOptions{})
	if ev.Decision != Allow || ev.Profile != "" {
		t.Errorf("default profile: %v %q", ev.Decision, ev.Profile)
	}
}

func TestEvaluateKnownSafe(t *testing.T) {
	p := NewPolicy()
	tests := []struct {
		script string
		safe   bool
	}{
		{"cat a | grep x | wc -l", true},
		{"git log --oneline -5", true},
		{"sed -n 1,5p f", true},
		{"sed -i s/a/b/ f", false},
		{"find . -name x -delete", false},
		{"ls > out", false},
		{"ls &", false},
		{"make", false},
		{"cat $F", false},
		{"rm -rf x", false},
	}
	for _, tt := range tests {
		ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
		if ev.KnownSafe != tt.safe {
			t.Errorf("%q: KnownSafe = %v, want %v", tt.script, ev.KnownSafe, tt.safe)
		}
		if ev.Decision != Prompt {
			t.Errorf("%q: decision %v without rules, want prompt", tt.script, ev.Decision)
		}
	}
}

func TestEvaluateFloorRaises(t *testing.T) {
	p := NewPolicy()
	for _, prog := range []string{"rm", "git", "dd", "sudo", "bash"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow})
	}
	tests := []struct {
		argv      []string
		dangerous bool
	}{
		{[]string{"rm", "-rf", "/"}, true},
		{[]string{"sudo", "rm", "-rf", "/"}, true},
		{[]string{"rm", "-rf", "/tmp/build"}, false},
		{[]string{"git", "push", "-f"}, true},
		{[]string{"bash", "-c", "curl x | sh"}, true},
		{[]string{"bash", "-c", ":(){ :|:& };:"}, true},
		{[]string{"git", "status"}, false},
	}
	for _, tt := range tests {
		ev := p.Evaluate(tt.argv, EvalOptions{})
		if ev.Dangerous != tt.dangerous {
			t.Errorf("%q: Dangerous = %v, want %v (%v)", tt.argv, ev.Dangerous, tt.dangerous, ev.Reasons)
		}
		if tt.dangerous && (ev.Decision != Prompt || !hasReason(ev, ReasonDangerous, "")) {
			t.Errorf("%q: %v %v, want prompt for danger", tt.argv, ev.Decision, ev.Reasons)
		}
	}
}

func TestEvaluateBudgets(t *testing.T) {
	p := corpusPolicy()
	tests := []struct {
		name, script string
	}{
		{"size", "ls " + strings.Repeat("a ", 1<<19+1)},
		{"commands", strings.Repeat("ls;", maxCommands+1)},
		{"nesting", strings.Repeat("(", 70) + "ls" + strings.Repeat(")", 70)},
		{"substitution nesting", strings.Repeat("echo $(", 70) + "ls" + strings.Repeat(")", 70)},
		{"wrapper nesting", strings.Repeat("nice ", 70) + "ls"},
		{"eval nesting", strings.Repeat("eval ", 70) + "ls"},
		// These overflow the parser's stack unless rejected before parsing.
		{"deep parens", strings.Repeat("((", 250000)},
		{"deep if", strings.Repeat("if ", 200000)},
		{"deep substitution", strings.Repeat("$(", 300000)},
	}
	for _, tt := range tests {
		ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
		if ev.Decision != Prompt || !hasReason(ev, ReasonUnanalysable, "") {
			t.Errorf("%s: %v %v, want prompt unanalysable", tt.name, ev.Decision, firstReasons(ev))
		}
	}
	// A forbidden command found before a budget runs out still counts.
	ev := p.Evaluate([]string{"rm x; " + strings.Repeat("ls;", maxCommands+1)}, EvalOptions{Shell: true})
	if ev.Decision != Forbidden {
		t.Errorf("forbidden before budget: %v", ev.Decision)
	}
}

func firstReasons(ev Evaluation) []Reason {
	return ev.Reasons[:min(3, len(ev.Reasons))]
}

func TestEvaluateShellStdin(t *testing.T) {
	tests := []scriptDecision{
		{"sh <<< 'curl http://x'", Forbidden},
		{"bash <<EOF\nrm -rf /\nEOF", Forbidden},
		{"bash -s <<< 'ls'", Prompt},
		{"cat <<< 'rm x'", Allow},
		{"sh -c ls <<< 'rm x'", Prompt}, // stdin is data for ls, not a script
	}
	wantScriptDecisions(t, corpusPolicy(), tests)
}

// TestEvaluateShellStdinSpelledOtherwise: the shell reading stdin is found
// however it is spelt and through wrappers, and its script is analysed;
// with sh and sudo allowed it still never allows (a shell fed from stdin
// is unanalysable).
func TestEvaluateShellStdinSpelledOtherwise(t *testing.T) {
	p := corpusPolicy()
	p.AddPrefixRule(PrefixRule{Program: "sh", Decision: Allow})
	p.AddPrefixRule(PrefixRule{Program: "sudo", Decision: Allow})
	checkScripts(t, p, []scriptCase{
		{`"sh" <<< 'curl http://x'`, Forbidden},
		{`s\h <<< 'curl http://x'`, Forbidden},
		{"sudo sh <<< 'curl http://x'", Forbidden},
		{"sudo -u root env X=1 /bin/sh <<'EOF'\nrm -rf /\nEOF", Forbidden},
		{`'sh' <<< 'whoami'`, Prompt},
		{"sudo sh <<< 'whoami'", Prompt},
		{"sudo sh <<< 'ls'", Prompt},
		{"sudo -s <<< 'curl http://x'", Forbidden},
	})
}

// TestEvaluateShellUnseenScript: a shell, or a wrapper starting one, whose
// commands come from a pipe, a file or stdin is unanalysable even when an
// allow rule names it; with -c, its script decides.
func TestEvaluateShellUnseenScript(t *testing.T) {
	p := corpusPolicy()
	for _, prog := range []string{"sh", "bash", "sudo", "su", "doas"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow})
	}
	checkScripts(t, p, []scriptCase{
		{"echo 'curl http://x' | sh", Prompt},
		{"cat x.sh | bash -s arg", Prompt},
		{"bash x.sh", Prompt},
		{"sh < x.sh", Prompt},
		{"echo 'curl http://x' | sudo -s", Prompt},
		{"echo 'curl http://x' | sudo -i", Prompt},
		{"echo 'curl http://x' | doas -s", Prompt},
		{"echo 'curl http://x' | su", Prompt},
		{"su -c 'ls'", Allow},
		{"sh -c 'ls'", Allow},
		{"sudo -s ls", Allow},
		{"sudo ls", Allow},
		// An option value missing at the end (fuzz-found panic).
		{"sudo -u", Allow},
		{"sh -o", Prompt},
	})
}

// scriptDecision is a shell script and the decision it must get.
type scriptDecision struct {
	script string
	want   Decision
}

// wantScriptDecisions evaluates each script as a shell script under p.
func wantScriptDecisions(t *testing.T, p *Policy, tests []scriptDecision) {
	t.Helper()
	for _, tt := range tests {
		if ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true}); ev.Decision != tt.want {
			t.Errorf("%q: %v, want %v (%v)", tt.script, ev.Decision, tt.want, ev.Reasons)
		}
	}
}
