package execpolicy

import "testing"

// TestSingleQuotesAsText holds single quotes that mvdan.cc/sh reads as
// quoting where bash reads them as ordinary characters of text it
// expands as if double-quoted: the word of ${x-…} and its kin inside
// double quotes or an unquoted heredoc body, and arithmetic. The
// substitutions in them run, so a forbidden command there makes the
// script forbidden. Each forbidden case ran its rm under bash 5.2.15; the
// controls are places where bash honours the quotes.
func TestSingleQuotesAsText(t *testing.T) {
	checkBypass3(t, bypassPolicy(), []bypass3Case{
		// The word of ${x OP word} inside double quotes.
		{":- dquoted", `echo "${x:-'$(rm p1)'}"`, Forbidden, 0},
		{"- dquoted", `echo "${x-'$(rm p1)'}"`, Forbidden, 0},
		{"+ dquoted", `x=1; echo "${x+'$(rm p3)'}"`, Forbidden, 0},
		{":+ dquoted", `x=1; echo "${x:+'$(rm p3)'}"`, Forbidden, 0},
		{"= dquoted", `echo "${x='$(rm p1)'}"`, Forbidden, 0},
		{":= dquoted", `echo "${x:='$(rm p1)'}"`, Forbidden, 0},
		// bash 5.2.15 honours the quotes of ${x?…}'s error message, but
		// it is text like the rest: judging it so is only stricter.
		{"? dquoted", `echo "${x?'$(rm p1)'}"`, Forbidden, 0},
		{":? dquoted", `echo "${x:?'$(rm p1)'}"`, Forbidden, 0},
		{"backquotes", "echo \"${x:-'`rm p15`'}\"", Forbidden, 0},
		{"text around", `echo "${x:-a'$(rm p1)'b}"`, Forbidden, 0},
		{"nested in quotes", `echo "${x:-'${y:-$(rm p17)}'}"`, Forbidden, 0},
		{"nested default", `echo "${x:-${y:-'$(rm p1)'}}"`, Forbidden, 0},
		{"nested dquotes", `echo ${x:-"${y:-'$(rm p1)'}"}`, Forbidden, 0},
		{"two levels", `echo "${x:-'${y:-'"'"'$(rm p1)'"'"'}'}"`, Forbidden, 0},
		// $'…' there is no ANSI-C quoting, and with extquote (on by
		// default) bash decodes it and expands the result: either
		// reading runs the substitution.
		{"$' raw", `echo "${x:-$'$(rm p13)'}"`, Forbidden, 0},
		{"$' decoded", `echo "${x:-$'\x24(rm p13)'}"`, Forbidden, 0},
		{"$' decoded backquotes", `echo "${x:-$'\x60rm p13\x60'}"`, Forbidden, 0},
		{"array", `x=(); echo "${x[@]:-'$(rm p24)'}"`, Forbidden, 0},
		{"$@", `set --; echo "${@:-'$(rm p25)'}"`, Forbidden, 0},
		{"$1", `echo "${1:-'$(rm p26)'}"`, Forbidden, 0},
		{"assignment", `y="${x:-'$(rm p14)'}"`, Forbidden, 0},
		{"local", `f() { local y="${x:-'$(rm p14)'}"; }`, Forbidden, 0},
		{"here-string", `cat <<< "${x:-'$(rm p20)'}"`, Forbidden, 0},
		{"redirect target", `echo hi > "${x:-'$(rm p21)'}"`, Forbidden, 0},
		{"case subject", `case "${x:-'$(rm p19)'}" in *) ;; esac`, Forbidden, 0},
		{"curl", `echo "${x:-'$(curl x)'}"`, Forbidden, 0},
		// Unquoted heredoc bodies are expanded as double-quoted text.
		{"heredoc", "cat <<EOF\n${x:-'$(rm p8)'}\nEOF", Forbidden, 0},
		{"heredoc backquotes", "cat <<EOF\n${x:-'`rm p8`'}\nEOF", Forbidden, 0},
		{"heredoc -", "cat <<EOF\n${x-'$(rm p8)'}\nEOF", Forbidden, 0},
		{"heredoc <<-", "cat <<-EOF\n\t${x:-'$(rm p8)'}\n\tEOF", Forbidden, 0},
		{"heredoc $'", "cat <<EOF\n${x:-$'$(rm p8)'}\nEOF", Forbidden, 0},
		{"heredoc arithmetic", "cat <<EOF\n$(( '$(rm p12)' ))\nEOF", Forbidden, 0},
		// Arithmetic is expanded as double-quoted text, $'…' decoded.
		{"$((", `echo $(( '$(rm p22)' ))`, Forbidden, 0},
		{"$(( dquoted", `echo "$(( '$(rm p22)' ))"`, Forbidden, 0},
		{"$[", `echo $[ '$(rm p2)' ]`, Forbidden, 0},
		{"((", `(( '$(rm p1)' ))`, Forbidden, 0},
		{"(( backquotes", "(( '`rm p1`' ))", Forbidden, 0},
		{"for ((", `for (( i='$(rm p3)'; 0; )); do :; done`, Forbidden, 0},
		{"for (( cond", `for (( ; '$(rm p3)'; )); do :; done`, Forbidden, 0},
		{"for (( post", `for (( i=0; i<1; i='$(rm p3)' )); do :; done`, Forbidden, 0},
		{"$(( $' decoded", `echo $(( $'\x24(rm p22)' ))`, Forbidden, 0},
		{"$(( default", `echo $(( ${x:-'$(rm p22)'} ))`, Forbidden, 0},
		{"slice length dquoted", `x=a; echo "${x:0:'$(rm p17)'}"`, Forbidden, 0},
		{"slice length", `x=a; echo ${x:0:'$(rm p18)'}`, Forbidden, 0},
		{"slice offset dquoted", `x=a; echo "${x:'$(rm p19)'}"`, Forbidden, 0},
		{"slice array", `x=(a); echo "${x[@]:0:'$(rm p1)'}"`, Forbidden, 0},
		// An indexed array's subscript in an assignment is arithmetic
		// too (an associative array's is not; the type is unknown).
		{"assigned subscript", `a['$(rm p1)']=1`, Forbidden, 0},
		{"declared subscript", `declare -a a; a['$(rm p1)']=1`, Forbidden, 0},
		{"array element", `a=(['$(rm p1)']=1)`, Forbidden, 0},
		{"local array element", `f() { local -a a=(['$(rm p1)']=1); }`, Forbidden, 0},
		// Controls: bash honours the quotes, or nothing is forbidden.
		{"unquoted default", `echo ${x:-'$(rm x)'}`, Prompt, 0},
		{"# pattern", `echo "${x#'$(rm x)'}"`, Prompt, 0},
		{"% pattern", `echo "${x%'$(rm x)'}"`, Prompt, 0},
		{"/ pattern", `x=a; echo "${x/a/'$(rm x)'}"`, Prompt, 0},
		{"quoted heredoc", "cat <<'EOF'\n${x:-'$(rm x)'}\nEOF", Allow, 0},
		{"single quotes", `echo '$(rm x)' "${x:-a}"`, Prompt, 0},
		{"default ls", `echo "${x:-'$(ls)'}"`, Prompt, 0},
		{"default text", `echo "${x:-'rm x'}"`, Prompt, 0},
		{"arithmetic text", `echo $(( '1' ))`, Prompt, 0},
		{"subshell in default", `echo "$(echo ${y:-'$(rm x)'})"`, Prompt, 0},
		{"let", `let '$(rm x)'`, Prompt, 0},
		{"[[ -eq", `[[ '$(rm x)' -eq 1 ]]`, Prompt, 0},
		{"unquoted subscript text", `a['1']=1`, Prompt, 0},
	})
}

// TestShellStdinOperand holds shells given their stdin as the script
// file: "-" ends their options, as "--" does, so that they read the
// script from stdin, and /dev/stdin, /dev/fd/0 and /proc/self/fd/0 name
// stdin. The heredoc or here-string is then the script, as for a shell
// given no operand; the rest are controls, a file named otherwise.
func TestShellStdinOperand(t *testing.T) {
	p := bypassPolicy()
	for _, prog := range []string{"sh", "bash", "dash"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass4"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"bash -", "bash - <<< 'rm p'", Forbidden, 0},
		{"bash /dev/stdin", "bash /dev/stdin <<< 'rm p'", Forbidden, 0},
		{"bash /dev/fd/0", "bash /dev/fd/0 <<< 'rm p'", Forbidden, 0},
		{"bash /proc/self/fd/0", "bash /proc/self/fd/0 <<< 'rm p'", Forbidden, 0},
		{"sh - heredoc", "sh - <<EOF\ncurl x\nEOF", Forbidden, 0},
		{"dash /dev/stdin heredoc", "dash /dev/stdin <<'EOF'\nrm p\nEOF", Forbidden, 0},
		{"bash -x -", "bash -x - <<< 'rm p'", Forbidden, 0},
		{"bash - args", "bash - a b <<< 'rm p'", Prompt, 0},
		{"bash -- /dev/stdin", "bash -- /dev/stdin <<< 'rm p'", Forbidden, 0},
		{"/bin/sh /dev/./stdin", "/bin/sh /dev/./stdin <<< 'rm p'", Forbidden, 0},
		{"sudo bash -", "sudo bash - <<< 'rm p'", Forbidden, 0},
		{"bash - ls", "bash - <<< 'ls'", Prompt, 0},
		// A file: the here-string is its stdin, not the script.
		{"bash - file", "bash - x.sh <<< 'rm p'", Prompt, 0},
		{"bash -- -", "bash -- - <<< 'rm p'", Prompt, 0},
		{"bash file", "bash x.sh <<< 'rm p'", Prompt, 0},
	})
}

// TestProgramRunsCommand holds allowed programs whose options or script
// make them run another command: GNU sed's e command and s///e flag,
// sdiff's and diff3's --diff-program, rg's --pre, split's --filter. An
// allow rule for the program says nothing about that command. The rest
// are the common forms, which stay allowed.
func TestProgramRunsCommand(t *testing.T) {
	p := bypassPolicy()
	for _, prog := range []string{"sed", "sdiff", "diff3", "rg", "split"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass4"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"sed -n e", "sed -n '1e rm p'", Forbidden, 0},
		{"sed e", "sed '$e rm p' f", Forbidden, 0},
		{"sed e after ;", "sed 's/a/b/;e curl x'", Forbidden, 0},
		{"sed e in block", "sed -n '/x/{e rm p\n}'", Forbidden, 0},
		{"sed -e", "sed -e '1e rm p'", Forbidden, 0},
		{"sed -ne", "sed -ne '1e rm p'", Forbidden, 0},
		{"sed -n -e", "sed -n -e p -e '1e rm p'", Forbidden, 0},
		{"sed --expression=", "sed --expression='1e rm p'", Forbidden, 0},
		{"sed --expr", "sed --expr '1e rm p'", Forbidden, 0},
		{"sed -e after operand", "sed p -e '1e rm p'", Forbidden, 0},
		{"sed -i.bak -e", "sed -i.bak -e '1e rm p' f", Forbidden, 0},
		{"sed -e\\'", "sed -e'1e rm p'", Forbidden, 0},
		{"sed e pattern space", "sed 's/a/touch p/e'", Prompt, 0},
		{"sed e alone", "sed 'e'", Prompt, 0},
		{"sed s///ge", "sed -n 's/x/y/ge' f", Prompt, 0},
		{"sed e ls", "sed '1e ls'", Prompt, 0},
		{"sed -f", "sed -f script.sed f", Prompt, 0},
		{"sed --file=", "sed --file=script.sed f", Prompt, 0},
		{"sed unknown option", "sed --bogus 's/x/y/'", Prompt, 0},
		{"sed unsure script", "sed '1!!e'", Prompt, 0},
		{"sed --sandbox after the script", "sed 's/a/b/e' --sandbox", Prompt, 0},
		{"sed --sandbox", "sed --sandbox 's/a/b/e'", Allow, 0},
		{"sed --sandbox -f", "sed --sandbox -f script.sed", Allow, 0},
		{"sed -n s///p", "sed -n 's/foo/bar/p' file", Allow, 0},
		{"sed -e s///g", "sed -e 's/x/y/g'", Allow, 0},
		{"sed /re/d", "sed '/end/d'", Allow, 0},
		{"sed $", "sed -n '$p' file", Allow, 0},
		{"sed y", "sed 'y/abc/xyz/'", Allow, 0},
		{"sed e in regex", "sed -n '/e/,/ee/s/e/E/gp' file", Allow, 0},
		{"sed a text", "sed '1a e rm p'", Allow, 0},
		{"sed -e a\\ -e text", "sed -e 'a\\' -e 'e rm p'", Allow, 0},
		{"sed -ie", "sed -ie 's/a/b/' f", Allow, 0},
		{"sed w file", "sed -n 's/e/E/w out' f", Allow, 0},
		{"sed label", "sed ':a;N;$!ba;s/\\n/ /g' f", Allow, 0},
		{"sdiff --diff-program=", "sdiff --diff-program=rm a b", Forbidden, 0},
		{"sdiff --diff-program", "sdiff --diff-program rm a b", Forbidden, 0},
		{"sdiff abbreviated", "sdiff --diff-prog=rm a b", Forbidden, 0},
		{"sdiff other", "sdiff --diff-program=./mydiff a b", Prompt, 0},
		{"sdiff", "sdiff -s a b", Allow, 0},
		{"diff3 --diff-program", "diff3 --diff-program=rm a b c", Forbidden, 0},
		{"diff3", "diff3 -m a b c", Allow, 0},
		{"rg --pre", "rg --pre rm x", Forbidden, 0},
		{"rg --pre=", "rg --pre=./conv x", Prompt, 0},
		{"rg --hostname-bin", "rg --hostname-bin=curl x", Forbidden, 0},
		{"rg --pre-glob", "rg --pre-glob '*.pdf' x", Allow, 0},
		{"rg", "rg -n x src", Allow, 0},
		{"split --filter", "split --filter='rm $FILE' f", Forbidden, 0},
		{"split --filter other", "split --filter='gzip > $FILE.gz' f", Prompt, 0},
		{"split", "split -l 5 f", Allow, 0},
	})
}

// TestWrappedDeclaration: a declaration builtin behind a wrapper (command
// export PATH=/x) is judged as the declaration clause it would be written
// first, unanalysable, and not by a rule that allows the builtin's name:
// the PATH it sets decides which ls runs next.
func TestWrappedDeclaration(t *testing.T) {
	p := bypassPolicy()
	for _, prog := range []string{"command", "builtin", "export", "declare", "local", "readonly", "typeset"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass4"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"command export", "command export PATH=/evil; ls", Prompt, 0},
		{"command -p export", "command -p export PATH=/evil; ls", Prompt, 0},
		{"builtin export", "builtin export PATH=/evil; ls", Prompt, 0},
		{"command declare -x", "command declare -x PATH=/evil; ls", Prompt, 0},
		{"command typeset", "command typeset PATH=/evil; ls", Prompt, 0},
		{"command readonly", "command readonly IFS=x; ls", Prompt, 0},
		{"command command export", "command command export PATH=/evil", Prompt, 0},
		{"command local in a function", "f() { command local PATH=/evil; ls; }; f", Prompt, 0},
		{"as written first", "export PATH=/evil; ls", Prompt, 0},
		{"control: command ls", "command ls", Allow, 0},
	})
}
