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
