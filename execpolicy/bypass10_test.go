package execpolicy

import "testing"

// TestFdBaseNames holds fd's ways of passing a file's name without the
// "./" before it, where a file named like an option is one for the
// command of -x/-X: --strip-cwd-prefix and the placeholders {/} and {/.}.
// "fdfind --strip-cwd-prefix -x find" and "fdfind -x find '{/}'" ran
// "find -delete" (fd 8.6.0) in a directory holding a file "-delete",
// deleting every file under it, while judged allow.
func TestFdBaseNames(t *testing.T) {
	p := execArgsPolicy()
	for _, prog := range []string{"find", "grep", "wc"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass10"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"--strip-cwd-prefix", "fd --strip-cwd-prefix -x find", Prompt, 0},
		{"--strip-cwd-prefix -X", "fdfind --strip-cwd-prefix -X find", Prompt, 0},
		{"--strip-cwd-prefix after", "fdfind -X find \\; --strip-cwd-prefix", Prompt, 0},
		{"--strip-cwd-prefix=always", "fd --strip-cwd-prefix=always -X find", Prompt, 0},
		{"{/}", "fd -x find '{/}'", Prompt, 0},
		{"{/.}", "fd -e txt -x find '{/.}'", Prompt, 0},
		{"second command", "fd -x ls \\; -X find '{/}'", Prompt, 0},
		// Controls: a program that takes any arguments; "./" kept.
		{"--strip-cwd-prefix grep", "fd --strip-cwd-prefix -x grep -l x", Allow, 0},
		{"{/} wc", "fd -x wc -l '{/}'", Allow, 0},
		{"--strip-cwd-prefix=never", "fd --strip-cwd-prefix=never -x find", Allow, 0},
		{"{//}", "fd -x find '{//}'", Allow, 0},
		{"find", "fd -x find", Allow, 0},
	})
}
