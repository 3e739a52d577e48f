package execpolicy

import (
	"strings"
	"testing"
)

// TestLess holds less's initial commands and lesskey files: "less $'+!touch
// x\n' f" ran touch on a terminal, and "less --lesskey-src=k f", k holding
// "#env" and "LESSOPEN=|touch x %s", ran it with its output in a pipe
// (less 590), while judged allow by an allow rule for less.
func TestLess(t *testing.T) {
	p := bypassPolicy()
	p.AddPrefixRule(PrefixRule{Program: "less", Decision: Allow, Source: "bypass11"})
	checkBypass3(t, p, []bypass3Case{
		{"+!", "less $'+!rm x\\n' f", Forbidden, 0},
		{"+!touch", "less $'+!touch x\\n' f", Prompt, 0},
		{"++!", "less '++!rm x' f", Forbidden, 0},
		{"+|", "less '+ma|mrm x' f", Forbidden, 0},
		{"+v", "less +v f", Prompt, 0},
		{"+s", "less '+sout' f", Prompt, 0},
		{"search then command", "less $'+/x\\n!touch y\\n' f", Prompt, 0},
		{"--lesskey-src", "less --lesskey-src=k f", Prompt, 0},
		{"--lesskey-src next word", "less --lesskey-src k f", Prompt, 0},
		{"abbreviated", "less --lesskey-s k f", Prompt, 0},
		{"upper case", "less --LESSKEY-SRC=k f", Prompt, 0},
		{"--lesskey-file", "less --lesskey-file=k f", Prompt, 0},
		{"--lesskey-content", "less --lesskey-content=x f", Prompt, 0},
		{"-k", "less -k k f", Prompt, 0},
		{"-k clustered", "less -Sk k f", Prompt, 0},
		{"-k attached", "less -Skk f", Prompt, 0},
		// Controls: moves, searches, options and their values.
		{"plain", "less f", Allow, 0},
		{"+G", "less +G f", Allow, 0},
		{"+50%", "less +50% f", Allow, 0},
		{"++F", "less ++F f", Allow, 0},
		{"+/pattern", "less '+/!rm x' f", Allow, 0},
		{"-p", "less -p '!rm' f", Allow, 0},
		{"-P value", "less -Pk f", Allow, 0},
		{"-o value", "less -o k f", Allow, 0},
		{"--line-numbers", "less --line-numbers f", Allow, 0},
		{"after --", "less -- '+!rm x' f", Allow, 0},
	})
}

// agentTerminalCase is a script and how it is judged on an agent's
// terminal and off one.
type agentTerminalCase struct {
	script    string
	agent, no Decision
}

// judgeOnAgentTerminal judges each case's script both ways under p.
func judgeOnAgentTerminal(t *testing.T, p *Policy, cases []agentTerminalCase) {
	t.Helper()
	for _, c := range cases {
		for _, agent := range []bool{true, false} {
			want := c.no
			if agent {
				want = c.agent
			}
			ev := p.Evaluate([]string{c.script}, EvalOptions{Shell: true, AgentTerminal: agent})
			if ev.Decision != want {
				t.Errorf("%q, agent terminal %v: %v, want %v; reasons %v", c.script, agent, ev.Decision, want, ev.Reasons)
			}
		}
	}
}

// TestAgentTerminalReaders holds the programs that take commands from
// their terminal: on an agent's terminal (Codex gives a command a pty the
// model types into) "nano f" is a shell one ^T away, "more f" one "!",
// so with an allow rule for them they prompt there, and only there.
func TestAgentTerminalReaders(t *testing.T) {
	p := bypassPolicy()
	for _, prog := range []string{"nano", "more", "emacs", "tig", "ls", "timeout", "uv"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass11"})
	}
	judgeOnAgentTerminal(t, p, []agentTerminalCase{
		{"nano f", Prompt, Allow},
		{"more f", Prompt, Allow},
		{"/usr/bin/more f", Prompt, Prompt}, // a path, not the rule's program: unmatched
		{"ls | more", Prompt, Allow},
		{"tig", Prompt, Allow},
		{"emacs f", Prompt, Allow},
		{"emacs --batch f", Allow, Allow},
		{"nano f; rm x", Forbidden, Forbidden},
		{"ls", Allow, Allow},
		{"sh -c 'nano f'", Prompt, Prompt}, // sh has no rule here
		{"timeout 5 nano f", Prompt, Allow},
		{"uv run nano f", Prompt, Allow}, // a runner's command, judged apart
	})
}

// TestAgentTerminalEnvCleared: on an agent's terminal the pagers are set
// for the command (gate's agentTerminalEnv); a wrapper that unsets them,
// or the whole environment, for what it runs would start a less that
// runs "!cmd", so with an allow rule for it it prompts there.
func TestAgentTerminalEnvCleared(t *testing.T) {
	p := bypassPolicy()
	for _, prog := range []string{"env", "git"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass11"})
	}
	judgeOnAgentTerminal(t, p, []agentTerminalCase{
		{"env -u PAGER git log", Prompt, Allow},
		{"env -uLESSSECURE git log", Prompt, Allow},
		{"env --unset=GIT_PAGER git log", Prompt, Allow},
		{"env --uns GIT_PAGER git log", Prompt, Prompt}, // abbreviated: never allowed
		{"env -i git log", Prompt, Allow},
		{"env -iv git log", Prompt, Allow},
		{"env - git log", Prompt, Allow},
		{"env --ignore-environment git log", Prompt, Allow},
		{"exec -c git log", Prompt, Prompt}, // exec has no rule here
		{"env -C /tmp git log", Allow, Allow},
		{"env git log", Allow, Allow},
	})
	// exec's -c, with a rule for exec's command.
	ev := p.Evaluate([]string{"exec -c git log"}, EvalOptions{Shell: true, AgentTerminal: true})
	found := false
	for _, r := range ev.Reasons {
		found = found || strings.Contains(r.Detail, "exec -c")
	}
	if !found {
		t.Errorf("exec -c on an agent's terminal: reasons %v, want exec -c named", ev.Reasons)
	}
}
