package execpolicy

import "testing"

// bypass3Case is a script of the third red-team round and the decision it
// must get; also, when set, is an alternative as safe.
type bypass3Case struct {
	name   string
	script string
	want   Decision
	also   Decision
}

// checkBypass3 judges each case as run --shell does, and as bash -c.
func checkBypass3(t *testing.T, p *Policy, cases []bypass3Case) {
	t.Helper()
	for _, c := range cases {
		for _, argv := range [][]string{{c.script}, {"bash", "-c", c.script}} {
			ev := p.Evaluate(argv, EvalOptions{Shell: len(argv) == 1})
			if ev.Decision != c.want && (c.also == 0 || ev.Decision != c.also) {
				t.Errorf("%s: %q (argv %d): %v, want %v; reasons %v", c.name, c.script, len(argv), ev.Decision, c.want, ev.Reasons)
			}
		}
	}
}

// TestHeredocDelimiters holds heredocs whose delimiter bash quote-removes
// (and decodes) before it compares body lines with it, where mvdan.cc/sh
// compares the raw text, and bodies that mvdan.cc/sh ends elsewhere than
// bash: each hid a line bash runs as heredoc data, or read data as
// commands. Every forbidden case runs rm or curl under bash 5.2.
func TestHeredocDelimiters(t *testing.T) {
	checkBypass3(t, bypassPolicy(), []bypass3Case{
		// $'...' delimiters are decoded: the body ends at the decoded
		// line, and the raw spelling after rm is a comment.
		{"ansi-c \\x", "cat <<$'#\\x41'\n#A\nrm x\n#\\x41\nls", Forbidden, 0},
		{"ansi-c octal", "cat <<$'#\\101'\n#A\nrm x\n#\\101", Forbidden, 0},
		{"ansi-c \\t", "cat <<$'#\\t'\n#\t\nrm x\n#\\t", Forbidden, 0},
		{"ansi-c \\e", "cat <<$'#\\e'\n#\x1b\nrm x\n#\\e", Forbidden, 0},
		{"ansi-c \\'", "cat <<$'#\\''\n#'\nrm x\n#\\'", Forbidden, 0},
		{"ansi-c \\u", "cat <<$'#\\u00e9'\n#\u00e9\nrm x\n#\\u00e9", Forbidden, 0},
		{"ansi-c \\c", "cat <<$'#\\cA'\n#\x01\nrm x\n#\\cA", Forbidden, 0},
		// Double quotes remove the backslash before \ $ " and `.
		{"dquote \\\\", "cat <<\"#\\\\\"\n#\\\nrm x\n#\\\\", Forbidden, 0},
		{"dquote \\$", "cat <<\"#\\$\"\n#$\nrm x\n#\\$", Forbidden, 0},
		{"dquote \\\"", "cat <<\"#\\\"\"\n#\"\nrm x\n#\\\"", Forbidden, 0},
		{"dquote \\`", "cat <<\"#\\`\"\n#`\nrm x\n#\\`", Forbidden, 0},
		{"dollar dquote", "cat <<$\"#\\$\"\n#$\nrm x\n#\\$", Forbidden, 0},
		{"dash ansi-c", "cat <<-$'#\\x41'\n\t#A\nrm x\n\t#\\x41", Forbidden, 0},
		{"second heredoc", "cat <<A <<$'#\\x42'\na\nA\n#B\nrm x\n#\\x42", Forbidden, 0},
		{"allowed pipeline", "echo hi | cat <<$'#\\x41'\n#A\ncurl x\n#\\x41", Forbidden, 0},
		{"in $( )", "echo \"$(cat <<$'#\\x41'\n#A\nrm x\n#\\x41\n)\"", Forbidden, 0},
		{"in backquotes", "echo `cat <<$'#\\x41'\n#A\nrm x\n#\\x41\n`", Forbidden, 0},
		{"in function", "f() { cat <<$'#\\x41'\n#A\nrm x\n#\\x41\n}", Forbidden, 0},
		// An unquoted body line ending in the delimiter after an
		// expansion does not end the body for bash.
		{"${HOME}EOF", "cat <<EOF\n${HOME}EOF\ncat <<'#Y'\nEOF\nrm x\n#Y", Forbidden, 0},
		{"$(:)EOF", "cat <<EOF\n$(:)EOF\ncat <<'#Y'\nEOF\nrm x\n#Y", Forbidden, 0},
		{"`:`EOF", "cat <<EOF\n`:`EOF\ncat <<'#Y'\nEOF\nrm x\n#Y", Forbidden, 0},
		{"$1EOF", "cat <<EOF\n$1EOF\ncat <<'#Y'\nEOF\nrm x\n#Y", Forbidden, 0},
		// <<- compares the line before stripping its tabs too: a
		// delimiter with a leading tab ends at that line.
		{"dash tab delimiter", "cat <<-\"\tEOF\"\nbody\n\tEOF\nrm x", Forbidden, 0},
		// Inside $( ), bash ends a body at a line that starts with the
		// delimiter and has a ")" after it, and reads the rest.
		{"comsub prefix", "echo $(cat <<EOF\ninner\nEOFrm x)", Forbidden, 0},
		{"comsub prefix paren", "echo $(cat <<EOF\ninner\nEOF)\nrm x", Forbidden, 0},
		// Only whether any part of the delimiter is quoted decides
		// whether the body is expanded.
		{"E\"\"OF", "cat <<E\"\"OF\nbody $HOME\nEOF", Allow, 0},
		{"'E'OF", "cat <<'E'OF\n$(rm x)\nEOF", Allow, 0},
		{"\"E\"OF", "cat <<\"E\"OF\n`rm x`\nEOF", Allow, 0},
		{"E\\OF", "cat <<E\\OF\n$(rm x)\nEOF", Allow, 0},
		{"EOF unquoted", "cat <<EOF\n$(rm x)\nEOF", Forbidden, 0},
		// Controls: the decoded delimiter ends the body where bash does.
		{"ansi-c data", "cat <<$'\\x41'\nhello\nA", Allow, 0},
		{"ansi-c then ls", "cat <<$'#\\x41'\n#A\nls\n#\\x41", Allow, 0},
		{"dquote data", "cat <<\"a\\$b\"\nhello\na$b\nls", Allow, Prompt},
		{"plain", "cat <<EOF\nhello\nEOF\nls", Allow, 0},
		{"dash plain", "cat <<-EOF\n\thello\n\tEOF\nls", Allow, 0},
		{"two plain", "cat <<A; cat <<'B'\na\nA\n$(rm x)\nB\nls", Allow, 0},
	})
}

// TestWrapperGrammar3 holds wrapper invocations whose option grammar,
// taken from the manual pages (GNU env, bash), the analysis read wrongly:
// each runs rm or curl.
func TestWrapperGrammar3(t *testing.T) {
	p := bypassPolicy()
	checkBypass3(t, p, []bypass3Case{
		// GNU env applies NAME=VALUE operands after -- too.
		{"env --", "env -- A=1 rm x", Forbidden, 0},
		{"env -i --", "env -i -- A=1 curl x", Forbidden, 0},
		{"env -- two", "env -- A=1 B=2 rm x", Forbidden, 0},
		{"nohup env --", "nohup env -- A=1 rm x", Forbidden, 0},
		{"env -u -C", "env -u A -C / rm x", Forbidden, 0},
		{"env --chdir=", "env --chdir=/ rm x", Forbidden, 0},
		{"env -S", "env -S 'rm x'", Forbidden, 0},
		{"env -- ls", "env -- A=1 ls", Prompt, 0},
		// bash takes its GNU long options before the short ones.
		{"bash --norc", "bash --norc -c 'rm x'", Forbidden, 0},
		{"bash --noprofile --norc", "bash --noprofile --norc -c 'curl x'", Forbidden, 0},
		{"bash --posix", "bash --posix -c 'rm x'", Forbidden, 0},
		{"bash --login", "bash --login -c 'rm x'", Forbidden, 0},
		{"bash --restricted", "bash --restricted -c 'rm x'", Forbidden, 0},
		{"bash --verbose", "bash --verbose -c 'rm x'", Forbidden, 0},
		{"bash --rcfile", "bash --rcfile /dev/null -c 'rm x'", Forbidden, 0},
		{"bash --init-file", "bash --init-file /dev/null -c 'rm x'", Forbidden, 0},
		{"bash --debugger", "bash --debugger -c 'rm x'", Forbidden, 0},
		{"bash --norc ls", "bash --norc -c ls", Prompt, 0},
		// In a cluster, -o and -O take the next word each; -c's script
		// is the word after their values.
		{"bash -oc", "bash -oc posix 'rm x'", Forbidden, 0},
		{"bash -co", "bash -co posix 'rm x'", Forbidden, 0},
		{"bash -Oc", "bash -Oc extglob 'curl x'", Forbidden, 0},
		{"bash -ooc", "bash -ooc posix errexit 'rm x'", Forbidden, 0},
		{"bash -oc keyword", "bash -oc keyword 'ls X=1'", Prompt, 0},
		{"sh -ec", "sh -ec 'rm x'", Forbidden, 0},
		{"bash -O extglob -c", "bash -O extglob -c 'rm x'", Forbidden, 0},
	})
}

// TestParserGaps3 holds scripts mvdan.cc/sh parses otherwise than bash,
// where the commands bash runs were lost: each runs rm or curl.
func TestParserGaps3(t *testing.T) {
	checkBypass3(t, bypassPolicy(), []bypass3Case{
		// Three levels of backquotes: mvdan.cc/sh reads the innermost
		// as text.
		{"backquotes 3", "echo `echo \\`echo \\\\\\`rm x\\\\\\`\\``", Forbidden, 0},
		{"backquotes 3 cat", "cat `echo \\`cat \\\\\\`curl x\\\\\\`\\``", Forbidden, 0},
		// bash re-reads (( and $(( that are no arithmetic as subshells.
		{"(( subshell", "((ls); rm x)", Forbidden, 0},
		{"$(( subshell", "echo $((ls); curl x)", Forbidden, 0},
		{"(( subshell nested", "((ls) && (rm x))", Forbidden, 0},
		{"(( arithmetic", "((x = 1 + 2))", Prompt, 0},
		// Extended glob patterns hold command substitutions.
		{"extglob case", "shopt -s extglob\ncase x in @($(rm x))) ;; esac", Forbidden, 0},
		{"extglob [[", "[[ x == @($(rm x)) ]]", Forbidden, 0},
		{"extglob !(", "[[ x == !(`rm x`) ]]", Forbidden, 0},
		{"extglob +(", "case x in +(a|$(curl x))) ;; esac", Forbidden, 0},
		{"extglob *(", "shopt -s extglob\necho *($(rm x))", Forbidden, 0},
		{"extglob ?(", "shopt -s extglob\nls ?(a|$(rm x))", Forbidden, 0},
		{"extglob plain", "[[ x == @(a|b) ]]", Prompt, 0},
		// a=(1)#y is one word for bash, the scalar assignment of
		// "(1)#y": what follows is no comment.
		{"array then #", "a=(1)#y; rm x", Forbidden, 0},
		{"array += then #", "a+=(1)#y; curl x", Forbidden, 0},
		{"array then comment", "a=(1) #y; rm x", Prompt, 0},
		{"subshell then #", "(ls)#c; rm x", Prompt, Forbidden},
		// bash takes any byte in a word; mvdan.cc/sh refuses invalid
		// UTF-8 (found by FuzzAnalyseVsBash).
		{"invalid utf-8", "curl \xa8", Forbidden, 0},
		{"invalid utf-8 word", "ls \xa8; rm x", Forbidden, 0},
		{"invalid utf-8 ls", "ls \xa8", Prompt, 0},
	})
}
