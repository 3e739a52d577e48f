package execpolicy

import "testing"

// runnersPolicy is execArgsPolicy with the programs of the seventh
// red-team round allowed: each runs a command given in its arguments,
// which an allow rule for the program says nothing about.
func runnersPolicy() *Policy {
	p := execArgsPolicy()
	for _, prog := range []string{"perf", "screen", "hyperfine", "strace", "ltrace", "ls", "ssh", "scp", "sftp"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass7"})
	}
	return p
}

// TestRunnerWrappers holds programs that run the command, or each
// script, after their options. perf and screen were unknown as wrappers;
// strace and ltrace took -p for an option after which nothing runs, but
// strace -p 1 touch f ran touch (strace 6.1).
func TestRunnerWrappers(t *testing.T) {
	checkBypass3(t, runnersPolicy(), []bypass3Case{
		{"perf stat", "perf stat rm x", Forbidden, 0},
		{"perf record", "perf record -g -o p.data rm x", Forbidden, 0},
		{"perf trace", "perf trace rm x", Forbidden, 0},
		{"perf --", "perf stat -e cycles -- rm x", Forbidden, 0},
		{"perf -p", "perf record -p 1 -- rm x", Forbidden, 0},
		{"perf unknown", "perf stat whoami", Prompt, 0},
		{"screen", "screen rm x", Forbidden, 0},
		{"screen -dmS", "screen -dmS s rm x", Forbidden, 0},
		{"screen -s", "screen -s rm", Forbidden, 0},
		{"screen -X", "screen -X stuff 'rm x'", Prompt, Forbidden},
		{"screen alone", "screen", Prompt, 0},
		{"screen -c", "screen -c evil.rc", Prompt, 0},
		{"hyperfine", "hyperfine 'rm x'", Forbidden, 0},
		{"hyperfine second", "hyperfine ls 'rm x'", Forbidden, 0},
		{"hyperfine --prepare", "hyperfine --prepare 'rm x' ls", Forbidden, 0},
		{"hyperfine after option", "hyperfine ls -r 3 'rm x'", Forbidden, 0},
		{"hyperfine -S", "hyperfine -S rm ls", Forbidden, 0},
		{"hyperfine param", "hyperfine -L x a,b 'ls {x}'", Prompt, 0},
		{"strace -p", "strace -p 1 rm x", Forbidden, 0},
		// A long option's value in the next word is an operand to a
		// reader that knows only some: the -o after it is strace's.
		{"strace --string-limit -o", "strace --string-limit 100 -o '|rm x' ls", Forbidden, 0},
		{"strace --user -o", "strace --user root -o '|rm x' ls", Forbidden, 0},
		{"strace --attach -o", "strace --attach 1 -o '|rm x'", Forbidden, 0},
		{"ltrace -p", "ltrace -p 1 rm x", Forbidden, 0},
		// Controls.
		{"perf stat ls", "perf stat -x, ls", Allow, 0},
		{"perf report", "perf report", Allow, 0},
		{"screen -ls", "screen -ls", Allow, 0},
		{"screen -r", "screen -r s", Allow, 0},
		{"screen ls", "screen -dm ls", Allow, 0},
		{"hyperfine ls", "hyperfine -w 2 ls 'ls -l'", Allow, 0},
		{"strace -p alone", "strace -p 1", Allow, 0},
	})
}

// TestSSHCommands holds OpenSSH clients' settings and options that are
// commands: ProxyCommand and LocalCommand run here, scp -S and sftp -S/-D
// name a program run here, and ssh HOST CMD runs CMD on HOST, which may
// be this host. An allow rule for the client says nothing about them.
func TestSSHCommands(t *testing.T) {
	checkBypass3(t, runnersPolicy(), []bypass3Case{
		{"ProxyCommand=", "ssh -o ProxyCommand='rm x' h", Forbidden, 0},
		{"attached", "ssh -oproxycommand='rm x' h", Forbidden, 0},
		// ssh reads options after the host as well.
		{"after the host", "ssh h -o ProxyCommand='rm x'", Forbidden, 0},
		{"after the host, -F", "ssh h -F evil.conf", Prompt, 0},
		{"Key Value", "ssh -o 'ProxyCommand rm x' h", Forbidden, 0},
		{"LocalCommand", "ssh -o PermitLocalCommand=yes -o LocalCommand='rm x' h", Forbidden, 0},
		{"remote", "ssh localhost rm x", Forbidden, 0},
		{"remote allowed", "ssh -p 22 h ls", Prompt, 0},
		{"-F", "ssh -F cfg h", Prompt, 0},
		{"scp -S", "scp -S rm a h:b", Forbidden, 0},
		{"scp -o", "scp -o ProxyCommand='rm x' a h:b", Forbidden, 0},
		{"sftp -D", "sftp -D rm h", Forbidden, 0},
		{"unknown", "ssh -o ProxyCommand=whoami h", Prompt, 0},
		// A login runs what stdin holds in a shell on the host
		// (TestSSHStdin).
		{"login", "ssh -p 22 h", Prompt, 0},
		// Controls.
		{"tunnel", "ssh -N -L 8080:localhost:80 h", Allow, 0},
		{"scp", "scp -P 22 a h:b", Allow, 0},
	})
}

// TestCommandLanguages holds programs whose own command language runs
// shell commands, given in their arguments: gdb's -ex 'shell CMD' and
// --args PROG, vim's -c '!CMD', +CMD and --cmd, and what reads such
// commands from a file or stdin; zip -TT and nix-shell --run run a
// command outright. An allow rule for the program says nothing of them.
func TestCommandLanguages(t *testing.T) {
	p := execArgsPolicy()
	for _, prog := range []string{"gdb", "vim", "nvim", "vi", "zip", "nix-shell"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass7"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"gdb -ex shell", "gdb -batch -ex 'shell rm x'", Forbidden, 0},
		{"gdb -ex !", "gdb -batch -ex '!rm x'", Forbidden, 0},
		{"gdb --eval-command=", "gdb --eval-command='shell rm x'", Forbidden, 0},
		{"gdb -eval-command", "gdb -eval-command 'shell rm x'", Forbidden, 0},
		{"gdb --args", "gdb -batch -ex run --args rm -rf x", Forbidden, 0},
		{"gdb -x", "gdb -x cmds.gdb", Prompt, 0},
		{"gdb -ex other", "gdb -batch -ex 'info registers' ./a.out", Prompt, 0},
		{"vim -c", "vim -c '!rm x' f", Forbidden, 0},
		{"vim -c silent", "vim -c 'silent !rm x' f", Forbidden, 0},
		{"vim +", "vim '+!rm x' f", Forbidden, 0},
		{"vim --cmd", "vim --cmd ':!rm x' f", Forbidden, 0},
		{"nvim -c", "nvim -c '!rm x'", Forbidden, 0},
		{"vi -S", "vi -S evil.vim f", Prompt, 0},
		{"vim -es", "vim -es f", Prompt, 0},
		{"zip -TT", "zip -T -TT 'rm x' a.zip f", Prompt, 0},
		{"zip --unzip-command", "zip --unzip-command='rm x' -T a.zip f", Forbidden, 0},
		{"nix-shell --run", "nix-shell --run 'rm x'", Forbidden, 0},
		{"nix-shell --command", "nix-shell -p hello --command 'rm x'", Forbidden, 0},
		// Controls. gdb and vim read commands (keys) from stdin unless
		// told not to (TestStdinCommandLanguages).
		{"vim version", "vim --version", Allow, 0},
		{"gdb batch", "gdb -batch ./a.out core", Allow, 0},
		{"zip", "zip -r a.zip dir", Allow, 0},
		{"nix-shell -p", "nix-shell -p hello", Allow, 0},
	})
}
