package execpolicy

import "testing"

// TestCommandLanguageOptions holds the ninth red-team round's ways past
// the readers of gdb, the vi family and ed: gdb's getopt_long_only
// abbreviations (-ev is -eval-command), a value of an option the reader
// did not know takes one (gdb -d --version, vim -T --help) passing for the
// option that stops the stdin read, vim's attached and clustered -c
// (-c!CMD, -nc CMD), vim's system("CMD"), ed's "!CMD" file operand. Each
// forbidden case ran "touch" through a shell on this host (gdb 13.1,
// vim 9.0, GNU ed 1.19) while judged allow or prompt.
func TestCommandLanguageOptions(t *testing.T) {
	checkBypass3(t, cmdLangPolicy(), []bypass3Case{
		{"gdb -ev", "gdb -batch -ev 'shell rm x'", Forbidden, 0},
		{"gdb -eval-co", "gdb -batch -eval-co 'shell rm x'", Forbidden, 0},
		{"gdb --eval-c=", "gdb -batch --eval-c='shell rm x'", Forbidden, 0},
		{"gdb --arg", "gdb -batch -ex r --arg rm x", Forbidden, 0},
		{"gdb -comm", "gdb -batch -comm evil.gdb", Prompt, 0},
		{"gdb value --version", "echo 'shell rm x' | gdb -d --version", Prompt, 0},
		{"gdb value -batch", "echo 'shell rm x' | gdb -cd -batch", Prompt, 0},
		{"gdb python", "gdb -batch -ex 'python import os; os.system(\"rm x\")'", Forbidden, 0},
		{"vim -T --help", "echo ':!rm x' | vim -T --help", Prompt, 0},
		{"vim -t --version", "echo ':!rm x' | vim -t --version", Prompt, 0},
		{"vim -c attached", "vim -T --version '-c!rm x' f", Forbidden, 0},
		{"vim -c cluster", "vim -es -nc '!rm x' f </dev/null", Forbidden, 0},
		{"vim system()", "vim -es -c 'call system(\"rm x\")' f </dev/null", Forbidden, 0},
		{"vim system() single quotes", "vim -es -c \"call system('rm x')\" f </dev/null", Forbidden, 0},
		{"vim --remote-send", "vim --remote-send ':!rm x<CR>'", Forbidden, 0},
		{"nvim -l", "nvim -l evil.lua", Prompt, 0},
		{"ed !file", "ed -s '!rm x' </dev/null", Forbidden, 0},
		// Controls.
		{"gdb -q -batch", "gdb -q -batch ./a.out core", Allow, 0},
		{"gdb -nx --batch", "gdb -nx --batch -p 12", Allow, 0},
		{"gdb -batch-silent", "gdb -batch-silent ./a.out", Allow, 0},
		{"vim --version", "vim --version", Allow, 0},
		{"vim -n --version", "vim -n --version", Allow, 0},
		{"ed --version", "ed --version", Allow, 0},
	})
}

// TestGoBuildFlags holds go's ways of naming a program it runs that
// goArgs missed: -ldflags with a package pattern ("all=-extld=CMD"), the
// linker flag's value in the next field ("-extld CMD"), -extldflags
// (gcc's -B, -wrapper and --ld-path run programs), and "go env --w", the
// flag package's two-dash spelling of -w. "go build
// -ldflags='all=-linkmode=external -extld=./x'" ran ./x and "go env --w"
// wrote the go env file (go 1.26) while judged allow.
func TestGoBuildFlags(t *testing.T) {
	p := execArgsPolicy()
	for _, prefix := range [][]string{{"go", "build"}, {"go", "test"}, {"go", "env"}} {
		p.AddPrefixRule(PrefixRule{Program: prefix[0], Rest: rest(prefix[1:]), Decision: Allow, Source: "bypass9"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"-ldflags pattern", "go build '-ldflags=all=-linkmode=external -extld=rm' .", Forbidden, 0},
		{"-ldflags pattern next word", "go build -ldflags 'pkg/...=-extld=rm' .", Forbidden, 0},
		{"-extld next field", "go build -ldflags '-linkmode external -extld rm' .", Forbidden, 0},
		{"-extld quoted", "go build -ldflags '-extld \"rm\"' .", Forbidden, 0},
		{"-extldflags", "go build -ldflags '-extldflags -B/tmp/evil' .", Prompt, 0},
		{"-extldflags quoted", "go build -ldflags \"-extldflags '-wrapper rm,x'\" .", Forbidden, 0},
		{"-gccgoflags", "go build -compiler gccgo -gccgoflags '-wrapper rm,x' .", Forbidden, 0},
		{"go env --w", "go env --w GOFLAGS=-toolexec=rm", Prompt, 0},
		{"go env -w=true", "go env -w=true CC=rm", Prompt, 0},
		// Controls.
		{"-ldflags -X", "go build -ldflags='all=-s -w -X main.v=1' .", Allow, 0},
		{"-extldflags -static", "go build -ldflags '-extldflags \"-static\"' .", Allow, 0},
		{"go env", "go env GOPATH", Allow, 0},
	})
}

// TestRunnerSpellings holds runners the tables missed under another
// name: npm's abbreviations (npm exe, npm explo) and its option
// abbreviations (--scr=CMD is --script-shell), npm explore, npm config set
// of a program npm runs later, pnpm's implicit exec of a command that is
// no pnpm command, bun x and bun exec, docker container exec, docker
// compose exec/run and docker run, hatch's ENV:CMD and hatch env run, uv
// tool run, pixi exec, and the project shells reading stdin. "npm exe
// touch f", "npm explo foo -- touch f" and "npm test --scr=./sh" ran
// (npm 11.19) while judged allow.
func TestRunnerSpellings(t *testing.T) {
	p := execArgsPolicy()
	for _, prog := range []string{"npm", "pnpm", "bun", "docker", "hatch", "uv", "pixi", "poetry", "pipenv"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass9"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"npm exe", "npm exe rm x", Forbidden, 0},
		{"npm explore", "npm explore foo -- rm x", Forbidden, 0},
		{"npm explo joined", "npm explo foo -- 'rm x'", Forbidden, 0},
		{"npm explore shell", "echo 'rm x' | npm explore foo", Prompt, 0},
		{"npm --scr=", "npm test --scr=rm", Forbidden, 0},
		{"npm --script-shel", "npm test --script-shel rm", Forbidden, 0},
		{"npm config set", "npm config set script-shell rm", Forbidden, 0},
		{"npm set", "npm set script-shell=rm", Forbidden, 0},
		{"npm c set", "npm c set node-options='--require ./e.js'", Prompt, 0},
		{"pnpm config set", "pnpm config set script-shell rm", Forbidden, 0},
		{"pnpm implicit exec", "pnpm rm-rf-tool x && pnpm curl x", Forbidden, 0},
		{"bun x", "bun x rm x", Forbidden, 0},
		{"bun exec", "bun exec 'rm x'", Forbidden, 0},
		{"docker container exec", "docker container exec c rm x", Forbidden, 0},
		{"docker compose exec", "docker compose -f f.yml exec -T svc rm x", Forbidden, 0},
		{"docker compose run", "docker compose run --rm svc rm x", Forbidden, 0},
		{"docker run", "docker run --rm -v a:b img rm x", Forbidden, 0},
		{"docker run --entrypoint", "docker run --entrypoint rm img x", Forbidden, 0},
		{"hatch ENV:CMD", "hatch run dev:rm x", Forbidden, 0},
		{"hatch env run", "hatch env run -- rm x", Forbidden, 0},
		{"uv tool run", "uv tool run rm x", Forbidden, 0},
		{"pixi exec", "pixi exec rm x", Forbidden, 0},
		{"poetry shell", "echo 'rm x' | poetry shell", Prompt, 0},
		{"pipenv shell", "echo 'rm x' | pipenv shell", Prompt, 0},
		// Controls.
		{"npm install --global", "npm install --global prettier", Allow, 0},
		{"npm config set registry", "npm config set registry https://r.example", Allow, 0},
		{"pnpm rm", "pnpm rm lodash", Allow, 0},
		{"pnpm install", "pnpm install --frozen-lockfile", Allow, 0},
		{"pnpm lint", "pnpm lint", Allow, 0},
		{"docker run tool", "docker run --rm -it img pytest", Allow, 0},
		{"hatch run test", "hatch run test:pytest", Allow, 0},
		{"docker ps", "docker ps -a", Allow, 0},
	})
}

// TestTmux holds tmux, whose commands run shell commands in its server,
// which may be the user's, outside the sandbox: new-session, new-window,
// split-window, respawn-pane, run-shell, if-shell, pipe-pane and
// display-popup take one, a format's #(CMD) runs one, -c runs one,
// source-file and -f read commands, send-keys types them. Each of
// new-session, run-shell, if-shell, new-window, split-window, pipe-pane,
// respawn-pane and source-file ran touch (tmux 3.3a) while judged allow.
func TestTmux(t *testing.T) {
	p := execArgsPolicy()
	p.AddPrefixRule(PrefixRule{Program: "tmux", Decision: Allow, Source: "bypass9"})
	checkBypass3(t, p, []bypass3Case{
		{"new-session", "tmux new-session -d 'rm x'", Forbidden, 0},
		{"new argv", "tmux new -d rm x", Forbidden, 0},
		{"run-shell", "tmux run-shell 'rm x'", Forbidden, 0},
		{"run -b", "tmux -L s run -b 'rm x'", Forbidden, 0},
		{"if-shell", "tmux if-shell 'rm x' 'display x'", Forbidden, 0},
		{"second command", "tmux ls \\; run 'rm x'", Forbidden, 0},
		{"format", "tmux display -p '#(rm x)'", Forbidden, 0},
		{"list -F format", "tmux ls -F '#(rm x)'", Forbidden, 0},
		{"-c", "tmux -c 'rm x'", Forbidden, 0},
		{"send-keys", "tmux send-keys 'rm x' Enter", Forbidden, 0},
		{"source-file", "tmux source-file t.conf", Prompt, 0},
		{"-f", "tmux -f evil.conf ls", Prompt, 0},
		{"-C", "echo 'run \"rm x\"' | tmux -C attach", Prompt, 0},
		{"abbreviation", "tmux neww -d 'rm x'", Forbidden, 0},
		{"no command", "tmux", Prompt, 0},
		// Controls.
		{"ls", "tmux ls", Allow, 0},
		{"list-windows -F", "tmux -L s list-windows -F '#{window_name}'", Allow, 0},
		{"capture-pane", "tmux capture-pane -p -t 0", Allow, 0},
		{"kill-server", "tmux -S /tmp/s kill-server", Allow, 0},
	})
}

// TestKubectlPods holds kubectl run and kubectl debug, which start a pod
// running the command after "--", as kubectl exec runs one in a pod.
func TestKubectlPods(t *testing.T) {
	p := execArgsPolicy()
	for _, sub := range []string{"run", "debug", "get"} {
		p.AddPrefixRule(PrefixRule{Program: "kubectl", Rest: rest([]string{sub}), Decision: Allow, Source: "bypass9"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"kubectl run", "kubectl run x --image=busybox --restart=Never -- rm x", Forbidden, 0},
		{"kubectl run -it --rm", "kubectl run -it --rm x --image busybox -- sh -c 'rm x'", Forbidden, 0},
		{"kubectl debug", "kubectl debug mypod -it --image=busybox -- rm x", Forbidden, 0},
		{"kubectl run unknown option", "kubectl run x --image=b --new-flag v -- rm x", Forbidden, 0},
		// Controls.
		{"kubectl run image", "kubectl run x --image=nginx", Allow, 0},
		{"kubectl run command", "kubectl run x --image=busybox -- sleep 10", Allow, 0},
		{"kubectl get", "kubectl get pods -n ns", Allow, 0},
	})
}
