package execpolicy

import "testing"

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
