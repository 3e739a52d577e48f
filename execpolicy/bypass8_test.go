package execpolicy

import "testing"

// cmdLangPolicy is execArgsPolicy with the programs of the eighth
// red-team round allowed: each reads commands of its own language, which
// run shell commands, from its arguments or its stdin.
func cmdLangPolicy() *Policy {
	p := execArgsPolicy()
	for _, prog := range []string{"gdb", "vim", "ex", "ed", "sqlite3", "psql", "dc", "emacs", "echo", "cat"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass8"})
	}
	return p
}

// TestStdinCommandLanguages holds programs that read their commands
// from stdin, where a pipe, a heredoc or a here-string feeds them what
// the rules never see: each ran "echo X" through a shell on this host
// (gdb 13, ed 1.19, vim 9.0, sqlite3 3.40, dc 1.4) while judged allow.
func TestStdinCommandLanguages(t *testing.T) {
	checkBypass3(t, cmdLangPolicy(), []bypass3Case{
		{"gdb pipe", "echo 'shell rm x' | gdb -q", Prompt, 0},
		{"gdb heredoc", "gdb ./a.out <<'E'\nshell rm x\nE", Prompt, 0},
		{"gdb here-string", "gdb <<< 'shell rm x'", Prompt, 0},
		{"gdb --args", "echo 'shell rm x' | gdb --args ./a.out -batch", Prompt, 0},
		{"ed", "printf '!rm x\\nq\\n' | ed -s f", Prompt, 0},
		{"ed -p", "ed -p '*' f <<< '!rm x'", Prompt, 0},
		{"ex", "printf '!rm x\\n' | ex f", Prompt, 0},
		{"vim keys", "printf ':!rm x\\n:q!\\n' | vim f", Prompt, 0},
		{"sqlite3 stdin", "echo '.shell rm x' | sqlite3", Prompt, 0},
		{"sqlite3 db stdin", "echo '.shell rm x' | sqlite3 db", Prompt, 0},
		{"sqlite3 valued option", "echo '.shell rm x' | sqlite3 -separator , db", Prompt, 0},
		{"sqlite3 -cmd", "echo '.shell rm x' | sqlite3 -cmd '.mode csv' db", Prompt, 0},
		{"psql stdin", "echo '\\! rm x' | psql", Prompt, 0},
		{"psql -f -", "echo '\\! rm x' | psql -f - db", Prompt, 0},
		{"dc stdin", "echo '!rm x' | dc", Prompt, 0},
		{"dc ?", "echo '!rm x' | dc -e '?'", Prompt, 0},
		{"dc -", "echo '!rm x' | dc -", Prompt, 0},
		// Controls: told to run something else, they do not read stdin.
		{"gdb -batch", "gdb -batch ./a.out core", Allow, 0},
		{"gdb --version", "gdb --version", Allow, 0},
		{"ed --version", "ed --version", Allow, 0},
		{"sqlite3 sql", "sqlite3 db 'select 1'", Allow, 0},
		{"sqlite3 -separator sql", "sqlite3 -separator , db 'select 1'", Allow, 0},
		{"psql -c", "psql -c 'select 1' db", Allow, 0},
		{"psql -l", "psql -l", Allow, 0},
		{"dc -e", "dc -e '2 3 + p'", Allow, 0},
	})
}

// TestArgumentCommandLanguages holds commands of those languages given
// in the arguments: sqlite3's .shell, .system and pipes, edit() and
// load_extension(); psql's \!, -o |CMD and COPY ... PROGRAM; dc's !.
func TestArgumentCommandLanguages(t *testing.T) {
	checkBypass3(t, cmdLangPolicy(), []bypass3Case{
		{"sqlite3 .shell", "sqlite3 db '.shell rm x'", Forbidden, 0},
		{"sqlite3 .system", "sqlite3 :memory: '.system rm x'", Forbidden, 0},
		{"sqlite3 .sh abbreviated", "sqlite3 db '.sh rm x'", Forbidden, 0},
		{"sqlite3 .once pipe", "sqlite3 db \".once '|rm x'\" 'select 1'", Forbidden, 0},
		{"sqlite3 -cmd", "sqlite3 -cmd '.shell rm x' db 'select 1'", Forbidden, 0},
		{"sqlite3 --cmd", "sqlite3 --cmd '.shell rm x' db 'select 1'", Forbidden, 0},
		{"sqlite3 second line", "sqlite3 db 'select 1;\n.shell rm x'", Forbidden, 0},
		{"sqlite3 after --", "sqlite3 db -- '.shell rm x'", Forbidden, 0},
		{"sqlite3 .load", "sqlite3 db '.load ./evil'", Prompt, 0},
		{"sqlite3 -init", "sqlite3 -init evil.sql db 'select 1'", Prompt, 0},
		{"sqlite3 load_extension", "sqlite3 db \"select load_extension('./evil')\"", Prompt, 0},
		{"sqlite3 edit", "sqlite3 db \"select EDIT ('x', 'rm x')\"", Prompt, 0},
		{"sqlite3 quoted function", "sqlite3 db \"select \\\"load_extension\\\"('./e')\"", Prompt, 0},
		{"psql -c \\!", "psql -c '\\! rm x' db", Forbidden, 0},
		{"psql --command=", "psql --command='\\! rm x'", Forbidden, 0},
		{"psql -c attached", "psql '-c\\! rm x'", Forbidden, 0},
		{"psql cluster", "psql -Xqc '\\! rm x'", Forbidden, 0},
		{"psql \\o", "psql -c '\\o |rm x' db", Prompt, 0},
		{"psql -o pipe", "psql -o '|rm x' -c 'select 1'", Forbidden, 0},
		{"psql --output", "psql --out='|rm x' -c 'select 1'", Forbidden, 0},
		{"psql copy program", "psql -c \"copy t from program 'rm x'\"", Prompt, 0},
		{"psql -v backquote", "psql -v 'PROMPT1=%`rm x`' -c 'select 1'", Prompt, 0},
		{"psql -f", "psql -f evil.sql", Prompt, 0},
		{"dc -e !", "dc -e '!rm x'", Forbidden, 0},
		{"dc --expression", "dc --expression='[!rm x]x'", Forbidden, 0},
		{"dc -f", "dc -f evil.dc", Prompt, 0},
		{"dc file", "dc evil.dc", Prompt, 0},
		{"emacs --eval", "emacs --batch --eval '(shell-command \"rm x\")'", Forbidden, 0},
		{"emacs -eval=", "emacs -batch -eval='(call-process \"rm\" nil nil nil \"x\")'", Forbidden, 0},
		{"emacs --ev abbreviated", "emacs --batch --ev '(shell-command \"rm x\")'", Forbidden, 0},
		{"emacs --execute", "emacs --batch --execute '(shell-command \"rm x\")'", Forbidden, 0},
		{"emacs -l", "emacs --batch -l evil.el", Prompt, 0},
		{"emacs --script", "emacs --script evil.el", Prompt, 0},
		{"emacs -f", "emacs --batch f.org -f org-html-export-to-html", Prompt, 0},
		// Controls.
		{"emacs file", "emacs --batch +12 f.txt", Allow, 0},
		{"sqlite3 quiet dot-commands", "sqlite3 db '.mode csv' '.headers on' 'select 1'", Allow, 0},
		{"sqlite3 -A", "sqlite3 -A -x a.db", Allow, 0},
		{"sqlite3 edit column", "sqlite3 db 'select edited from t'", Allow, 0},
		{"psql sql", "psql -h localhost -U me -c 'select 1' db", Allow, 0},
		{"dc compare", "dc -e '1 2 !<a p'", Allow, 0},
	})
}

// TestSSHStdin holds OpenSSH clients given a host and no command: ssh
// runs what its stdin holds in a shell on the host, which may be this
// one, outside the sandbox ("echo 'rm x' | ssh localhost"), and sftp runs
// its own commands from stdin or -b's file, whose "!CMD" runs CMD here.
func TestSSHStdin(t *testing.T) {
	checkBypass3(t, runnersPolicy(), []bypass3Case{
		{"ssh pipe", "echo 'rm x' | ssh localhost", Prompt, 0},
		{"ssh -T heredoc", "ssh -T h <<'E'\nrm x\nE", Prompt, 0},
		{"ssh option after host", "echo 'rm x' | ssh h -p 22", Prompt, 0},
		{"sftp pipe", "echo '!rm x' | sftp h", Prompt, 0},
		{"sftp -b", "sftp -b cmds h", Prompt, 0},
		{"sftp -b -", "echo '!rm x' | sftp -b - h", Prompt, 0},
		// Controls: no shell on the host.
		{"ssh -N", "ssh -N -L 8080:localhost:80 h", Allow, 0},
		{"ssh -W", "ssh -W host:22 jump", Allow, 0},
		{"ssh -G", "ssh -G h", Allow, 0},
		{"ssh -V", "ssh -V", Allow, 0},
	})
}

// TestInputArguments holds xargs and parallel, which add the words of
// their input to the arguments of the command they run: arguments the
// rules never see. "echo '-exec touch p ;' | xargs find ." ran touch
// (findutils 4.9) while judged allow; so did tar's --to-command, env's
// command and sed's e. Only a program that reads whatever its arguments
// takes them unseen.
func TestInputArguments(t *testing.T) {
	p := cmdLangPolicy()
	for _, prog := range []string{"xargs", "parallel", "find", "sed", "tar", "env", "ls", "grep"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass8"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"xargs find", "echo '-exec rm x ;' | xargs find .", Prompt, 0},
		{"xargs sed", "echo 's/a/b/e' | xargs sed", Prompt, 0},
		{"xargs tar", "echo '--to-command=x' | xargs tar -xf a.tar", Prompt, 0},
		{"xargs env", "echo 'rm x' | xargs env", Prompt, 0},
		{"xargs -I", "echo -delete | xargs -I% find . %", Prompt, 0},
		{"xargs -a", "xargs -a args find .", Prompt, 0},
		{"xargs path", "echo -delete | xargs /usr/bin/find .", Prompt, 0},
		{"parallel", "echo -delete | parallel find .", Prompt, 0},
		{"xargs forbidden", "echo x | xargs rm", Forbidden, 0},
		// Controls: programs that only read, whatever their arguments.
		{"xargs grep", "find . -name '*.go' | xargs grep -l foo", Allow, 0},
		{"xargs ls", "echo x | xargs -0 ls -l", Allow, 0},
		{"xargs alone", "echo x | xargs", Allow, 0},
	})
}

// TestRunners holds the runners of project environments and packages:
// uv run, poetry run, bundle exec, npx and the like run the command after
// their options, which the rules never saw ("npx --no touch f" ran touch,
// npm 11). What the rules say of that command holds; a rule allowing the
// runner speaks for a command no rule matches.
func TestRunners(t *testing.T) {
	p := execArgsPolicy()
	for _, prefix := range [][]string{{"uv", "run"}, {"uv", "pip"}, {"uvx"}, {"poetry", "run"}, {"bundle", "exec"}, {"npx"},
		{"npm", "exec"}, {"pnpm", "exec"}, {"yarn", "dlx"}, {"pdm", "run"}, {"conda", "run"}, {"docker", "exec"},
		{"kubectl", "exec"}, {"direnv", "exec"}, {"pixi", "run"}} {
		p.AddPrefixRule(PrefixRule{Program: prefix[0], Rest: rest(prefix[1:]), Decision: Allow, Source: "bypass8"})
	}
	p.AddPrefixRule(PrefixRule{Program: "git", Rest: rest([]string{"push"}), Decision: Prompt, Source: "bypass8"})
	checkBypass3(t, p, []bypass3Case{
		{"uv run", "uv run rm x", Forbidden, 0},
		{"uv run options", "uv run --with x -p 3.12 -- rm x", Forbidden, 0},
		{"uv global option value", "uv --directory d run rm x", Forbidden, 0},
		{"uvx", "uvx rm x", Forbidden, 0},
		{"poetry run", "poetry run rm x", Forbidden, 0},
		{"bundle exec", "bundle exec rm x", Forbidden, 0},
		{"npx", "npx --no rm x", Forbidden, 0},
		{"npx -c", "npx -c 'rm x'", Forbidden, 0},
		{"npm exec --", "npm exec -- rm x", Forbidden, 0},
		{"npm x", "npm x -c 'rm x'", Forbidden, 0},
		{"pnpm exec", "pnpm exec rm x", Forbidden, 0},
		{"yarn dlx", "yarn dlx rm x", Forbidden, 0},
		{"pdm run", "pdm run rm x", Forbidden, 0},
		{"conda run", "conda run -n base rm x", Forbidden, 0},
		{"docker exec", "docker exec -it c bash -c 'rm x'", Forbidden, 0},
		{"kubectl exec", "kubectl exec -n ns pod -c ctr -- rm x", Forbidden, 0},
		{"direnv exec", "direnv exec . rm x", Forbidden, 0},
		{"pixi run", "pixi run rm x", Forbidden, 0},
		{"prompt rule holds", "uv run git push", Prompt, 0},
		{"danger holds", "poetry run dd if=/dev/zero of=/dev/sda", Prompt, 0},
		{"stdin shell", "uv run sh", Prompt, 0},
		{"unknown option", "uv run --new-flag rm x", Forbidden, 0},
		// Controls: the runner's rule speaks for an unmatched command.
		{"uv run pytest", "uv run pytest -q", Allow, 0},
		{"uv run -m", "uv run -m pytest", Allow, 0},
		{"npx tool", "npx --yes prettier --write .", Allow, 0},
		{"bundle exec rspec", "bundle exec rspec", Allow, 0},
		{"uv pip", "uv pip install requests", Allow, 0},
	})
}

// rest is a PrefixRule.Rest of one alternative at each position.
func rest(words []string) [][]string {
	out := make([][]string, len(words))
	for i, w := range words {
		out[i] = []string{w}
	}
	return out
}

// TestBuildToolOptions holds build tools' options that name a program
// they run: go's -exec, -toolexec, -vettool and -ldflags -extld, cargo's
// --config, npm's --script-shell. An allow rule for "go test" said
// nothing of "go test -exec 'rm x' ./...".
func TestBuildToolOptions(t *testing.T) {
	p := execArgsPolicy()
	for _, prefix := range [][]string{{"go", "test"}, {"go", "build"}, {"go", "vet"}, {"go", "env"}, {"cargo", "test"},
		{"cargo", "build"}, {"npm", "test"}, {"npm", "run"}, {"pnpm", "test"}} {
		p.AddPrefixRule(PrefixRule{Program: prefix[0], Rest: rest(prefix[1:]), Decision: Allow, Source: "bypass8"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"go test -exec", "go test -exec 'rm x' ./...", Forbidden, 0},
		{"go -exec after packages", "go test ./... -exec=rm", Forbidden, 0},
		{"go -toolexec", "go build --toolexec='rm x' .", Forbidden, 0},
		{"go -vettool", "go vet -vettool=./evil .", Prompt, 0},
		{"go -ldflags -extld", "go build -ldflags='-linkmode=external -extld=rm' .", Forbidden, 0},
		{"go env -w", "go env -w GOFLAGS=-toolexec=./evil", Prompt, 0},
		{"cargo --config", "cargo test --config 'target.x86_64-unknown-linux-gnu.runner=\"rm\"'", Forbidden, 0},
		{"cargo --config file", "cargo build --config evil.toml", Prompt, 0},
		{"npm --script-shell", "npm test --script-shell='rm x'", Forbidden, 0},
		{"npm run --script-shell", "npm run build --script-shell rm", Forbidden, 0},
		{"npm --node-options", "npm test --node-options='--require ./evil.js'", Prompt, 0},
		{"pnpm --script-shell", "pnpm test --script-shell=rm", Forbidden, 0},
		// Controls.
		{"go test", "go test -run TestX -v -count=1 ./...", Allow, 0},
		{"go test -args", "go test ./... -args -exec rm", Allow, 0},
		{"go build -ldflags", "go build -ldflags='-s -w' .", Allow, 0},
		{"cargo build", "cargo build --release", Allow, 0},
		{"npm test --", "npm test -- --script-shell=x", Allow, 0},
	})
}
