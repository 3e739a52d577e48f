package execpolicy

import "testing"

// sedBypassPolicy is bypassPolicy with the programs of the fifth red-team
// round allowed: each of them runs a command given in its arguments.
func sedBypassPolicy() *Policy {
	p := bypassPolicy()
	for _, prog := range []string{"sed", "sdiff", "diff3", "split", "rg"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass5"})
	}
	return p
}

// TestSedScriptReadings holds sed commands whose scripts GNU sed 4.9
// compiles one at a time, in the order of its arguments: --sandbox
// refuses e only in the scripts after it, and the operand is a script
// only when no -e or -f is given (or, under POSIXLY_CORRECT, none before
// it). Each forbidden case ran its touch under GNU sed 4.9.
func TestSedScriptReadings(t *testing.T) {
	checkBypass3(t, sedBypassPolicy(), []bypass3Case{
		// --sandbox after a script does not guard it.
		{"-e then --sandbox", "sed -e '1e rm p' --sandbox in.txt", Forbidden, 0},
		{"-e then --sa", "sed -e '1e rm p' --sa in.txt", Forbidden, 0},
		{"-e then --sandbox -e", "sed -e '1e rm p' --sandbox -e p in.txt", Forbidden, 0},
		{"--expression then --sandbox", "sed --expression='1e rm p' --sandbox in.txt", Forbidden, 0},
		{"--sandbox between", "sed -e p --sandbox -e '1e rm p' -e '1e curl x' in.txt", Allow, 0},
		{"-f then --sandbox", "sed -f x.sed --sandbox in.txt", Prompt, 0},
		{"operand then --sandbox", "sed '1e rm p' --sandbox in.txt", Forbidden, 0},
		{"--sandbox then -e", "sed --sandbox -e '1e rm p' in.txt", Allow, 0},
		{"--sa then -e", "sed --sa -e '1e rm p' in.txt", Allow, 0},
		{"--sandbox then operand", "sed --sandbox '1e rm p' in.txt", Allow, 0},
		{"--sandbox then -f", "sed --sandbox -f x.sed in.txt", Allow, 0},
		{"-e a\\ then --sandbox -f", "sed -e 'a\\' --sandbox -f x.sed in.txt", Allow, 0},
		{"-e e\\ then --sandbox -f", "sed -e '1e echo \\' --sandbox -f x.sed in.txt", Prompt, 0},
		// The operand is a file when an -e is given: its a\ does not
		// swallow the -e script.
		{"a\\ operand, -e", "sed 'a\\' -e '1e rm p' in.txt", Forbidden, 0},
		{"i\\ operand, -e", "sed 'i\\' -e '1e rm p' in.txt", Forbidden, 0},
		{"c\\ operand, -e", "sed 'c\\' -e '1e rm p' in.txt", Forbidden, 0},
		{"a\\ operand, --expression", "sed 'a\\' --expression='1e rm p' in.txt", Forbidden, 0},
		{"a\\ operand, -n -e", "sed -n 'a\\' -e '1e rm p' in.txt", Forbidden, 0},
		// Under POSIXLY_CORRECT the operand is the script and -e a file.
		{"posix operand", "sed '1e rm p' -e p in.txt", Forbidden, 0},
		// Controls.
		{"-e a\\ -e", "sed -e 'a\\' -e '1e rm p' in.txt", Allow, 0},
		{"a\\ operand, -e p", "sed 'a\\' -e p in.txt", Allow, 0},
	})
}

// TestExecOptionPrefixes holds options that run a command written as
// GNU getopt accepts them: any unique prefix of the long name, however
// short. Each forbidden case of split, sdiff and diff3 ran its command
// under GNU coreutils 9.1 and diffutils 3.8.
func TestExecOptionPrefixes(t *testing.T) {
	checkBypass3(t, sedBypassPolicy(), []bypass3Case{
		{"split --f=", "split --f='rm p' in.txt", Forbidden, 0},
		{"split --fi", "split --fi 'rm p' in.txt", Forbidden, 0},
		{"sdiff --d=", "sdiff --d=rm a b", Forbidden, 0},
		{"sdiff --di", "sdiff --di rm a b", Forbidden, 0},
		{"diff3 --d=", "diff3 --d=rm a b c", Forbidden, 0},
		{"rg --p", "rg --p=rm x", Forbidden, 0},
		{"sed --e", "sed --e '1e rm p' in.txt", Forbidden, 0},
		{"sed --e=", "sed --e='1e rm p' in.txt", Forbidden, 0},
		{"sed --f", "sed --f x.sed in.txt", Prompt, 0},
		{"split --filter=", "split --filter='rm p' in.txt", Forbidden, 0},
		{"split -l", "split -l 5 in.txt", Allow, 0},
		{"rg --pre-glob", "rg --pre-glob '*.pdf' x", Allow, 0},
	})
}

// TestExecOptionAfterDashDash holds options that run a command after a
// "--" that is the value of another option, which the scan cannot tell
// from the end of the options without knowing every option's arity.
func TestExecOptionAfterDashDash(t *testing.T) {
	checkBypass3(t, sedBypassPolicy(), []bypass3Case{
		{"split -- as a value", "split --additional-suffix -- --filter='rm p' in.txt", Forbidden, 0},
		{"sdiff -- as a value", "sdiff -o -- --diff-program=rm a b", Forbidden, 0},
		{"diff3 -- as a value", "diff3 -L -- --diff-program=rm a b c", Forbidden, 0},
		// A file named like the option after a real "--" is judged as
		// the option too: stricter than needed.
		{"split -- file", "split -- --filter=x in.txt", Prompt, 0},
		{"split", "split -l 5 -- in.txt", Allow, 0},
		{"sdiff", "sdiff -s -- a b", Allow, 0},
	})
}

// TestSubscriptQuotesAsText holds single quotes inside the subscript of
// ${a[…]}, which bash expands as double-quoted text for an indexed array:
// the quotes are characters, and the substitution in them runs. Each
// forbidden case ran its touch under bash 5.2.15 (the array's type is not
// known, so an associative array, where it does not, is judged the same).
func TestSubscriptQuotesAsText(t *testing.T) {
	checkBypass3(t, bypassPolicy(), []bypass3Case{
		{"dquoted", `echo "${a[${y:-'$(rm p)'}]}"`, Forbidden, 0},
		{"unquoted", `echo ${a[${y:-'$(rm p)'}]}`, Forbidden, 0},
		{"default", `echo "${a[${y:-'$(rm p)'}]:-x}"`, Forbidden, 0},
		{"indirect", `echo "${!a[${y:-'$(rm p)'}]}"`, Forbidden, 0},
		{"nested", `echo "${x:-${a[${y:-'$(rm p)'}]}}"`, Forbidden, 0},
		{"quoted subscript", `echo "${a['$(rm p)']}"`, Forbidden, 0},
		{"quoted subscript unquoted", `echo ${a['$(rm p)']}`, Forbidden, 0},
		{"heredoc", "cat <<E\n${a[${y:-'$(rm p)'}]}\nE", Forbidden, 0},
		{"length", `echo "${#a['$(rm p)']}"`, Forbidden, 0},
		{"in arithmetic", `echo $(( a[${y:-'$(rm p)'}] ))`, Forbidden, 0},
		{"assigned", `a[${y:-'$(rm p)'}]=1`, Forbidden, 0},
		{"control: ls", `echo "${a['$(ls)']}"`, Prompt, 0},
		{"control: text", `echo "${a['rm p']}"`, Prompt, 0},
	})
}

// TestSedETextContinues holds e commands whose text goes on past a line
// end, as the text of a, i and c does: a backslash before the newline
// continues it, across -e scripts too, and GNU sed runs the whole text,
// its escapes decoded. Each forbidden case ran its touch under GNU sed 4.9.
func TestSedETextContinues(t *testing.T) {
	checkBypass3(t, sedBypassPolicy(), []bypass3Case{
		{"across -e", "sed -n -e '1e echo \\' -e 'rm p' in.txt", Forbidden, 0},
		{"in one script", "sed -n '1e echo \\\nrm p' in.txt", Forbidden, 0},
		{"e\\ newline", "sed -n '1e\\\nrm p' in.txt", Forbidden, 0},
		{"one-liner e\\", "sed -n '1e\\rm p' in.txt", Forbidden, 0},
		{"escaped letter", "sed -n '1e \\rm p' in.txt", Forbidden, 0},
		{"\\n", "sed -n '1e echo\\nrm p' in.txt", Forbidden, 0},
		{"\\x", "sed -n '1e echo;\\x72m p' in.txt", Forbidden, 0},
		{"e text into a sandboxed -e", "sed -n -e '1e echo \\' --sandbox -e 'rm p' in.txt", Forbidden, 0},
		{"control: ls", "sed -n '1e echo \\\nls' in.txt", Prompt, 0},
	})
}
