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

// TestViNames holds the vi family under the names distributions install
// it as: each ran ":!touch x" from -c (vim.basic 9.0 on Debian 12) or is
// a link to the same binary, which reads its name only for its mode,
// while judged allow by an allow rule for the name.
func TestViNames(t *testing.T) {
	p := cmdLangPolicy()
	names := []string{"editor", "eview", "evim", "gview", "gvimdiff", "nex", "nvi", "nview", "rgview", "rgvim", "rview",
		"vim.athena", "vim.basic", "vim.gtk", "vim.gtk3", "vim.motif", "vim.nox", "vim.tiny", "vimx"}
	var cases []bypass3Case
	for _, n := range names {
		p.AddPrefixRule(PrefixRule{Program: n, Decision: Allow, Source: "bypass10"})
		cases = append(cases,
			bypass3Case{n + " -c", n + " -c '!rm x' f", Forbidden, 0},
			bypass3Case{n + " stdin", "echo ':!rm x' | " + n + " f", Prompt, 0},
			bypass3Case{n + " --version", n + " --version", Allow, 0})
	}
	cases = append(cases, bypass3Case{"by path", "/usr/bin/vim.basic -es '+!rm x' f", Forbidden, 0})
	checkBypass3(t, p, cases)
}
