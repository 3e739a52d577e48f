package execpolicy

import "testing"

// execArgsPolicy is bypassPolicy with the programs of the sixth red-team
// round allowed: each runs a command given in its arguments, which an
// allow rule for the program says nothing about.
func execArgsPolicy() *Policy {
	p := bypassPolicy()
	for _, prog := range []string{"fd", "fdfind", "make", "gmake", "awk", "gawk", "mawk", "man"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass6"})
	}
	return p
}

// TestFdExec holds fd's -x/--exec and -X/--exec-batch, which run the
// words after them, up to a ";", as a command, as find's -exec does. Each
// forbidden case ran its command under fd 8.6.0 (fdfind).
func TestFdExec(t *testing.T) {
	checkBypass3(t, execArgsPolicy(), []bypass3Case{
		{"-x", "fd -x rm", Forbidden, 0},
		{"-X", "fd -X rm", Forbidden, 0},
		{"--exec", "fd --exec rm -f", Forbidden, 0},
		{"--exec-batch", "fd --exec-batch curl x", Forbidden, 0},
		{"--exec=", "fd --exec=rm a", Forbidden, 0},
		{"-x attached", "fd -xrm a", Forbidden, 0},
		{"-x in a cluster", "fd -HIx rm", Forbidden, 0},
		{"fdfind", "fdfind pat -x rm {}", Forbidden, 0},
		{"by path", "/usr/bin/fdfind -X rm", Forbidden, 0},
		{"after ;", "fd -x ls ';' -X rm", Forbidden, 0},
		{"attached, continued", "fd --exec=git push", Prompt, 0},
		{"unknown command", "fd -x whoami", Prompt, 0},
		// Controls: an allowed command, a value that holds an x.
		{"-x ls", "fd -x ls", Allow, 0},
		{"-e x", "fd -ex rm", Allow, 0},
		{"-t x", "fd -tx pat", Allow, 0},
		{"pattern", "fd -H rm", Allow, 0},
		{"after --", "fd -- -x", Allow, 0},
	})
}

// TestMakeArgs holds make's arguments that change what the recipes of an
// allowed "make test" run: --eval text and NAME=VALUE operands define the
// variables the recipes expand (CC, SHELL, MAKEFLAGS), -f, -C and -I pick
// another makefile. Each forbidden case ran its command under GNU make 4.3
// with a Makefile whose test recipe is "$(CC) x.c".
func TestMakeArgs(t *testing.T) {
	checkBypass3(t, execArgsPolicy(), []bypass3Case{
		{"CC=", "make test CC='rm -rf x'", Forbidden, 0},
		{"MAKEFLAGS=", "make test 'MAKEFLAGS=CC=rm\\ x'", Prompt, 0},
		{"!= runs at parse", "make test 'X!=rm x'", Forbidden, 0},
		{"after --", "make test -- CC='curl x'", Forbidden, 0},
		{"SHELL=", "make test SHELL=/tmp/sh", Prompt, 0},
		{"--eval", "make test --eval='CC=rm x'", Forbidden, 0},
		{"--ev abbreviated", "make test --ev 'CC=rm x'", Forbidden, 0},
		{"-E", "make test -E 'CC=rm x'", Forbidden, 0},
		{"-sE attached", "make test '-sECC=rm x'", Forbidden, 0},
		{"eval recipe", "make test --eval 'x:; rm y' x", Forbidden, 0},
		{"eval unknown", "make test --eval 'CC=whoami'", Prompt, 0},
		{"-f", "make test -f evil.mk", Prompt, 0},
		{"-sfevil.mk", "make test -sfevil.mk", Prompt, 0},
		{"--file=", "make test --file=evil.mk", Prompt, 0},
		{"--makefile", "make test --mak evil.mk", Prompt, 0},
		{"-C", "make test -C /tmp/evil", Prompt, 0},
		{"--directory", "make test --dir=/tmp/evil", Prompt, 0},
		{"-I", "make test -I /tmp/evil", Prompt, 0},
		{"gmake", "gmake test CC='rm x'", Forbidden, 0},
		// Controls: options and targets that change no recipe.
		{"targets", "make test lint", Allow, 0},
		{"flags", "make test -j4 -s -k", Allow, 0},
		{"-o", "make test -o CC=x", Allow, 0},
		{"-W", "make test -Wf", Allow, 0},
	})
}

// TestAwkRuns holds awk programs that run a command: system(), print to
// a pipe, getline from one, and gawk's @ (an indirect call reaches
// system). Each forbidden case ran its command under mawk 1.3.4.
func TestAwkRuns(t *testing.T) {
	checkBypass3(t, execArgsPolicy(), []bypass3Case{
		{"system", `awk 'BEGIN { system("rm -rf x") }'`, Forbidden, 0},
		{"print |", `awk '{ print | "curl -T - x" }' f`, Forbidden, 0},
		{"getline", `awk 'BEGIN { "rm x" | getline }'`, Forbidden, 0},
		{"escaped quote", `awk 'BEGIN { system("rm \"x\"") }'`, Forbidden, 0},
		{"after -F", `awk -F: 'BEGIN{system("rm x")}'`, Forbidden, 0},
		{"after -v", `awk -v a=1 -- 'BEGIN{system("rm x")}'`, Forbidden, 0},
		{"gawk -e", `gawk -e 'BEGIN{system("rm x")}'`, Forbidden, 0},
		{"gawk --source=", `gawk --source='BEGIN{system("rm x")}'`, Forbidden, 0},
		{"mawk", `mawk 'BEGIN{system("rm x")}'`, Forbidden, 0},
		{"dynamic command", `awk 'BEGIN{c="r" "m x"; system(c)}'`, Prompt, 0},
		{"indirect call", `gawk 'BEGIN{f="sys" "tem"; @f("x")}'`, Prompt, 0},
		{"|&", `gawk 'BEGIN{print "x" |& "cat"}'`, Prompt, 0},
		{"-f", "awk -f prog.awk in.txt", Prompt, 0},
		{"--file=", "gawk --file=prog.awk in.txt", Prompt, 0},
		{"-W exec", "mawk -W exec prog.awk in.txt", Prompt, 0},
		{"-l", "gawk -l ext 'BEGIN{}'", Prompt, 0},
		// Controls: programs that run nothing.
		{"print", `awk -F: '{ print $1 }' /etc/passwd`, Allow, 0},
		{"or", `awk '$1 == "a" || $2 == "b"' f`, Allow, 0},
		{"system in a file name", `awk '{print}' system`, Allow, 0},
	})
}

// TestManPager holds man's -P/--pager and -H/--html, whose value is a
// command man runs through a shell. The -P cases ran their command under
// man-db 2.11.2 with a terminal on stdout.
func TestManPager(t *testing.T) {
	checkBypass3(t, execArgsPolicy(), []bypass3Case{
		{"-P", "man -P 'rm -rf x' ls", Forbidden, 0},
		{"-P attached", "man '-Prm x' ls", Forbidden, 0},
		{"-aP cluster", "man -aP 'curl x' ls", Forbidden, 0},
		{"--pager=", "man --pager='rm x' ls", Forbidden, 0},
		{"--pa abbreviated", "man --pa 'rm x' ls", Forbidden, 0},
		{"-H browser", "man '-Hrm x' ls", Forbidden, 0},
		{"--html=", "man --html='rm x' ls", Forbidden, 0},
		{"-H alone", "man -H ls", Prompt, 0},
		{"-C", "man -C evil.conf ls", Prompt, 0},
		{"-P unknown", "man -P whoami ls", Prompt, 0},
		// Controls: a page named rm, values that hold a P.
		{"page rm", "man rm", Allow, 0},
		{"section", "man 1 ls", Allow, 0},
		{"-M path", "man -M /usr/Pshare ls", Allow, 0},
		{"-LP", "man -LP ls", Allow, 0},
	})
}

// TestMoreWrappers holds programs whose purpose is to run the command
// after their options, which the analysis did not know as wrappers: what
// they ran prompted as unmatched rather than being forbidden, and an
// allow rule for one allowed whatever it ran. The setpriv, ssh-agent, sg
// and bwrap cases ran their command on this host (util-linux 2.38,
// OpenSSH 9.2, shadow 4.13, bubblewrap 0.8).
func TestMoreWrappers(t *testing.T) {
	p := execArgsPolicy()
	for _, prog := range []string{"setpriv", "eatmydata", "ssh-agent", "sg", "bwrap", "chronic"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass6"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"setpriv", "setpriv --reuid=1000 --clear-groups rm -rf x", Forbidden, 0},
		{"setpriv by path", "/usr/bin/setpriv --nnp curl x", Forbidden, 0},
		{"eatmydata", "eatmydata rm -rf x", Forbidden, 0},
		{"ssh-agent", "ssh-agent -t 60 rm x", Forbidden, 0},
		{"sg -c", "sg root -c 'rm x'", Forbidden, 0},
		{"sg joined", "sg root rm x", Forbidden, 0},
		{"bwrap", "bwrap --dev-bind / / rm x", Forbidden, 0},
		{"chronic", "chronic -e curl x", Forbidden, 0},
		{"ccache", "ccache rm x", Forbidden, 0},
		{"faketime", "faketime -f '+1d' rm x", Forbidden, 0},
		{"gosu", "gosu root rm x", Forbidden, 0},
		{"sshpass", "sshpass -p pw rm x", Forbidden, 0},
		{"tini", "tini -- rm x", Forbidden, 0},
		{"flock-like lckdo", "lckdo /tmp/l rm x", Forbidden, 0},
		{"unknown command", "eatmydata whoami", Prompt, 0},
		// Controls: an allowed command, and no command.
		{"setpriv ls", "setpriv --nnp ls", Allow, 0},
		{"eatmydata ls", "eatmydata ls -l", Allow, 0},
		{"sg ls", "sg root -c ls", Allow, 0},
		{"setpriv --dump", "setpriv --dump rm", Allow, 0},
		{"ssh-agent -k", "ssh-agent -k", Allow, 0},
	})
}

// TestStraceOutputPipe holds strace's -o whose value starts with "|" or
// "!": strace runs the rest as a command and pipes its trace to it. Each
// forbidden case but --out ran its command under strace 6.1.
func TestStraceOutputPipe(t *testing.T) {
	p := execArgsPolicy()
	p.AddPrefixRule(PrefixRule{Program: "strace", Decision: Allow, Source: "bypass6"})
	checkBypass3(t, p, []bypass3Case{
		{"-o |", "strace -o '|rm x' ls", Forbidden, 0},
		{"-o !", "strace -o '!curl x' ls", Forbidden, 0},
		{"-o attached", "strace '-o|rm x' ls", Forbidden, 0},
		{"-fo cluster", "strace -fo '|rm x' ls", Forbidden, 0},
		{"--output=", "strace --output='|rm x' ls", Forbidden, 0},
		// strace 6.1 refuses --out as ambiguous (--output-separately):
		// judged as --output, the stricter.
		{"--out abbreviated", "strace --out '|rm x' ls", Forbidden, 0},
		{"-o | unknown", "strace -o '|whoami' ls", Prompt, 0},
		// Controls: a file, and a | in another option's value.
		{"-o file", "strace -o trace.txt ls", Allow, 0},
		{"-e value", "strace -e 'trace=open|read' ls", Allow, 0},
		{"traced rm", "strace -f rm x", Forbidden, 0},
	})
}
