package execpolicy

import (
	"slices"
	"strings"
)

// execOptions lists programs that are no wrappers but have options whose
// value is a command they run: an allow rule for the program says nothing
// about that command. Such an option makes the command unanalysable, and
// its value is searched for forbidden commands as a script.
type execOptions struct {
	// short are the short option letters whose value runs (tar -I).
	short string
	// long are the long options whose value runs. GNU getopt takes any
	// unambiguous prefix of a long option, so any prefix counts as well
	// (see longOption).
	long []string
	// oldStyle: a first argument without a dash is a cluster of short
	// options whose values are later arguments (tar cIf PROG FILE).
	oldStyle bool
	// valuePrefix holds, for a long option, what its value must start with
	// to run something, which is cut off (--checkpoint-action=exec=CMD).
	valuePrefix nameTable[string]
	// global: the options are read only before the first operand, the
	// subcommand (git -c KEY=VALUE log, not git log -c); skip are the
	// options there whose value is the next word (git -C DIR); one that
	// also runs a command is judged as such first.
	global bool
	skip   []string
	// configValue: a value is KEY=VALUE, where VALUE may be a command,
	// after a ! for an alias (git -c alias.x='!cmd' x).
	configValue bool
	// sub, for a global spec, are the subcommands with options of their
	// own that run a command (git rebase -x CMD).
	sub nameTable[*execOptions]
	// runsAfter is an operand after which the rest is a command the
	// program runs (git bisect run CMD, git submodule foreach CMD).
	runsAfter string
	// script, when set, judges the arguments instead of the fields
	// above: they hold a program in the tool's own language, which may
	// run commands (sed's e).
	script func(a *analysis, ws []word, depth int) Decision
	// runs, when set, says how the program runs the command after its
	// options (npx PKG ARGS), which is judged as a runner's (runner).
	runs *wrapper
	// runners, for a global spec, are the subcommands that run the
	// command after their options (uv run, bundle exec), judged so.
	runners nameTable[*wrapper]
	// anywhere are long options read anywhere among the arguments, up to
	// "--", whose value runs (npm --script-shell).
	anywhere []string
	// commands, with implicit, are the subcommands of a global spec: any
	// other word there is a command it runs as implicit says (pnpm
	// eslint), judged as a runner's.
	commands []string
	implicit *wrapper
	// envPrefix: the command of a runner may be given as ENV:CMD (hatch
	// run dev:pytest), which runs CMD.
	envPrefix bool
}

// programExecOptions holds, by basename, the options of a program that
// run a command.
var programExecOptions = nameTable[*execOptions]{
	{"apptainer", &execOptions{global: true, runners: singularityRunners}},
	// apt -o sets commands apt and dpkg run (aptargs.go).
	{"apt", &execOptions{script: aptArgs}},
	{"apt-get", &execOptions{script: aptArgs}},
	{"ar", &execOptions{script: ldArgs}},
	{"asdf", &execOptions{global: true, runners: asdfRunners}},
	// awk's system(), pipes and gawk's @ run commands (see awkArgs).
	{"awk", &execOptions{script: awkArgs}},
	// Runners (runners.go): what they run is judged, but a rule that
	// allows the runner speaks for a command no rule matches.
	{"bun", &execOptions{global: true, runners: bunRunners}},
	{"bundle", &execOptions{global: true, skip: []string{"--gemfile"}, runners: bundleRunners}},
	{"bunx", &execOptions{runs: bunxRun}},
	{"c++", &execOptions{script: ccArgs}},
	{"c89", &execOptions{script: ccArgs}},
	{"c99", &execOptions{script: ccArgs}},
	{"cargo", &execOptions{script: cargoArgs}},
	{"cc", &execOptions{script: ccArgs}},
	{"cc1", &execOptions{script: ccArgs}},
	{"cc1plus", &execOptions{script: ccArgs}},
	{"chg", &execOptions{long: []string{"--config"}, configValue: true}},
	{"clang", &execOptions{script: ccArgs}},
	{"clang++", &execOptions{script: ccArgs}},
	{"clang-cpp", &execOptions{script: ccArgs}},
	// cmake -E env/time/chdir, -P, -C, -DCMAKE_* (toolopts.go).
	{"cmake", &execOptions{script: cmakeArgs}},
	{"collect2", &execOptions{script: ldArgs}},
	// colorgcc runs gcc with its arguments.
	{"colorgcc", &execOptions{script: ccArgs}},
	{"composite", &execOptions{script: imageMagickArgs}},
	{"conda", &execOptions{global: true, runners: condaRunners}},
	// ImageMagick opens "|CMD" as a pipe where built with pipes.
	{"convert", &execOptions{script: imageMagickArgs}},
	// cpio --rsh-command runs the remote shell for HOST:FILE archives:
	// "cpio -o --rsh-command=./x -F localhost:f" ran x (cpio 2.13).
	{"cpio", &execOptions{long: []string{"--rsh-command"}}},
	{"cpp", &execOptions{script: ccArgs}},
	{"crictl", &execOptions{global: true, skip: []string{"-c", "--config", "-i", "--image-endpoint", "-r", "--runtime-endpoint", "-t", "--timeout"}, runners: crictlRunners}},
	{"ctr", &execOptions{global: true, skip: []string{"-a", "--address", "-n", "--namespace", "--timeout", "--connect-timeout"}, runners: ctrRunners, sub: ctrGroups}},
	// dc's "!" runs a command; it reads code from stdin (see dcArgs).
	{"dc", &execOptions{script: dcArgs}},
	{"devbox", &execOptions{global: true, runners: devboxRunners}},
	{"diff3", &execOptions{long: []string{"--diff-program"}}},
	{"direnv", &execOptions{global: true, runners: direnvRunners}},
	{"distrobox", &execOptions{global: true, runners: distroboxRunners}},
	{"distrobox-enter", &execOptions{runs: distroboxEnter}},
	{"docker", &execOptions{global: true, skip: dockerGlobalValue, runners: dockerRunners, sub: dockerGroups}},
	{"dpkg", &execOptions{script: dpkgArgs}},
	// ed's "!CMD" runs a command, and ed reads its commands from stdin.
	{"ed", &execOptions{script: edArgs}},
	{"editor", &execOptions{script: vimArgs}},
	// emacs --eval runs Lisp; -l, --script and -f load or call it.
	{"emacs", &execOptions{script: emacsArgs}},
	// emacsclient -e hands Lisp to a running Emacs (emacsclientargs.go).
	{"emacsclient", &execOptions{script: emacsclientArgs}},
	{"eps2eps", &execOptions{script: gsArgs}},
	{"eview", &execOptions{script: vimArgs}},
	{"evim", &execOptions{script: vimArgs}},
	{"ex", &execOptions{script: vimArgs}},
	{"fnm", &execOptions{global: true, skip: []string{"--log-level", "--node-dist-mirror", "--fnm-dir", "--arch", "--version-file-strategy"}, runners: fnmRunners}},
	// ftp's "!CMD" runs a command, and ftp reads its commands from stdin.
	{"ftp", &execOptions{script: ftpArgs}},
	{"g++", &execOptions{script: ccArgs}},
	{"gawk", &execOptions{script: awkArgs}},
	// The C toolchain: programs, plugins and option files its flags name
	// (ccargs.go); versioned and triple names are found by
	// toolchainExecOptions.
	{"gcc", &execOptions{script: ccArgs}},
	{"gcc-ar", &execOptions{script: ldArgs}},
	{"gcc-nm", &execOptions{script: ldArgs}},
	{"gcc-ranlib", &execOptions{script: ldArgs}},
	{"gccgo", &execOptions{script: ccArgs}},
	// gdb -ex/-x run gdb commands (shell CMD, !CMD); --args starts a program.
	{"gdb", &execOptions{script: gdbArgs}},
	{"gfortran", &execOptions{script: ccArgs}},
	// Many git settings are commands git runs (alias.*, core.pager,
	// core.sshCommand, core.fsmonitor, diff.external, ...); --exec-path
	// picks the directory of the programs its subcommands run.
	{"git", &execOptions{short: "c", long: []string{"--config-env", "--exec-path"}, global: true, configValue: true,
		skip: gitGlobalValue, sub: gitSubcommandExecOptions}},
	// make's --eval text and NAME=VALUE operands define what its recipes
	// run; -f, -C and -I pick another makefile (gmake on the BSDs).
	{"gmake", &execOptions{script: makeArgs}},
	// gnuplot's system, !, backquotes, "|CMD" and "< CMD" run commands;
	// it reads them from files and stdin (see gnuplotArgs).
	{"gnuplot", &execOptions{script: gnuplotArgs}},
	// go -exec, -toolexec, -vettool; cargo --config (toolargs.go).
	{"go", &execOptions{script: goArgs}},
	{"goenv", &execOptions{global: true, runners: envExec}},
	{"gold", &execOptions{script: ldArgs}},
	// gpg runs its agent, dirmngr and photo viewer programs, which its
	// options (or an --options file) name: "gpg --agent-program ./x" and
	// --dirmngr-program ran x (GnuPG 2.2.40).
	{"gpg", &execOptions{long: gpgRuns}},
	{"gpg2", &execOptions{long: gpgRuns}},
	// Ghostscript: -dNOSAFER, pipes as output files (toolopts.go).
	{"gs", &execOptions{script: gsArgs}},
	{"gsc", &execOptions{script: gsArgs}},
	{"gsx", &execOptions{script: gsArgs}},
	{"guix", &execOptions{global: true, runners: guixRunners}},
	{"gview", &execOptions{script: vimArgs}},
	{"gvim", &execOptions{script: vimArgs}},
	{"gvimdiff", &execOptions{script: vimArgs}},
	// hatch run ENV:CMD runs CMD (see cutEnvPrefix).
	{"hatch", &execOptions{global: true, skip: []string{"-e", "--env", "-p", "--project"}, runners: hatchRunners, sub: hatchGroups, envPrefix: true}},
	// hg --config sets hooks, aliases (!CMD), extensions and the editor:
	// "hg --config hooks.pre-status=./x status", alias.x=!./x and
	// extensions.e=e.py ran x (Mercurial 6.3.2); chg is its client.
	{"hg", &execOptions{long: []string{"--config"}, configValue: true}},
	{"identify", &execOptions{script: imageMagickArgs}},
	{"jenv", &execOptions{global: true, runners: envExec}},
	{"kubectl", &execOptions{global: true, skip: kubectlGlobalValue, runners: kubectlRuns}},
	{"ld", &execOptions{script: ldArgs}},
	{"ld.bfd", &execOptions{script: ldArgs}},
	{"ld.gold", &execOptions{script: ldArgs}},
	{"ld.lld", &execOptions{script: ldArgs}},
	{"ld.mold", &execOptions{script: ldArgs}},
	// less's initial commands (+CMD) and lesskey files run commands.
	{"less", &execOptions{script: lessArgs}},
	// lftp -c/-e run its commands ("!CMD" among them), -f a file of them;
	// without -c it reads them from stdin.
	{"lftp", &execOptions{script: lftpArgs}},
	{"magick", &execOptions{script: imageMagickArgs}},
	{"make", &execOptions{script: makeArgs}},
	{"mamba", &execOptions{global: true, runners: condaRunners}},
	// man's pager (-P) and browser (-H) are commands it runs.
	{"man", &execOptions{script: manArgs}},
	// mariadb and mysql: system, \! and pager run commands, and they
	// read them from stdin without -e (see mysqlArgs).
	{"mariadb", &execOptions{script: mysqlArgs}},
	{"mawk", &execOptions{script: awkArgs}},
	{"micromamba", &execOptions{global: true, runners: condaRunners}},
	{"mise", &execOptions{global: true, skip: []string{"-C", "--cd", "-E", "--env", "-j", "--jobs"}, runners: miseRunners}},
	{"mogrify", &execOptions{script: imageMagickArgs}},
	{"mold", &execOptions{script: ldArgs}},
	{"montage", &execOptions{script: imageMagickArgs}},
	{"mysql", &execOptions{script: mysqlArgs}},
	// nano's speller (-s) runs on ^T/F12, and an rcfile (-f) may set it:
	// "nano --speller=./x f", -s and "--rcfile=rc" ran x on F12 (nano 7.2).
	{"nano", &execOptions{short: "sf", long: []string{"--speller", "--rcfile"}}},
	{"nawk", &execOptions{script: awkArgs}},
	// nerdctl reads docker's subcommands.
	{"nerdctl", &execOptions{global: true, skip: nerdctlGlobalValue, runners: dockerRunners, sub: dockerGroups}},
	{"nex", &execOptions{script: vimArgs}},
	{"nix", &execOptions{global: true, skip: []string{"--extra-experimental-features", "--experimental-features", "--store", "--log-format"}, runners: nixRunners}},
	// nix-shell --run/--command run a command in the shell it makes.
	{"nix-shell", &execOptions{long: []string{"--run", "--command"}}},
	{"nm", &execOptions{script: ldArgs}},
	// npm and pnpm: --script-shell and the like name a program (toolargs.go).
	// nodemon -x/--exec runs a command on every change.
	{"nodemon", &execOptions{short: "x", long: []string{"--exec"}}},
	{"nodenv", &execOptions{global: true, runners: envExec}},
	{"npm", &execOptions{global: true, skip: []string{"--prefix", "-w", "--workspace"}, runners: npmRunners, anywhere: npmRunsConfig, sub: npmConfigCommands}},
	{"npx", &execOptions{runs: npmExec}},
	{"nvi", &execOptions{script: vimArgs}},
	{"nview", &execOptions{script: vimArgs}},
	{"nvim", &execOptions{script: vimArgs}},
	{"nvm", &execOptions{global: true, runners: nvmRunners}},
	// openssl -engine, -provider, -config load shared objects (toolopts.go).
	{"openssl", &execOptions{script: opensslArgs}},
	{"pdf2ps", &execOptions{script: gsArgs}},
	{"pdm", &execOptions{global: true, skip: []string{"-p", "--project"}, runners: pythonRun}},
	{"pftp", &execOptions{script: ftpArgs}},
	{"pipenv", &execOptions{global: true, skip: []string{"--python"}, runners: pythonRun}},
	{"pixi", &execOptions{global: true, skip: []string{"--manifest-path", "--color"}, runners: pixiRunners}},
	{"pnpm", &execOptions{global: true, skip: []string{"-C", "--dir", "-F", "--filter"}, runners: pnpmRunners, anywhere: npmRunsConfig,
		sub: npmConfigCommands, commands: pnpmCommands, implicit: anyCommand}},
	{"pnpx", &execOptions{runs: npmExec}},
	{"podman", &execOptions{global: true, skip: dockerGlobalValue, runners: dockerRunners, sub: dockerGroups}},
	{"poetry", &execOptions{global: true, skip: []string{"-C", "--directory", "-P", "--project"}, runners: pythonRun}},
	{"ps2pdf", &execOptions{script: gsArgs}},
	{"ps2pdfwr", &execOptions{script: gsArgs}},
	{"ps2ps", &execOptions{script: gsArgs}},
	// psql's meta-commands run commands, COPY ... PROGRAM one on the
	// server (see psqlArgs).
	{"psql", &execOptions{script: psqlArgs}},
	{"py.test", &execOptions{script: pytestArgs}},
	{"pyenv", &execOptions{global: true, runners: envExec}},
	// pytest -p, --pdbcls, -W, -o and -c import modules (toolopts.go).
	{"pytest", &execOptions{script: pytestArgs}},
	{"pytest-3", &execOptions{script: pytestArgs}},
	{"ranlib", &execOptions{script: ldArgs}},
	{"rbenv", &execOptions{global: true, runners: envExec}},
	// rg --pre runs a program on every file searched; --hostname-bin
	// runs one for the hostname of its hyperlinks.
	{"rg", &execOptions{long: []string{"--pre", "--hostname-bin"}}},
	{"rgview", &execOptions{script: vimArgs}},
	{"rgvim", &execOptions{script: vimArgs}},
	// rpm expands macros, %(CMD) and %{lua:...} among them, from --eval,
	// --define and macro files; --pipe pipes its output to a command.
	// "rpm --eval '%(./x)'", -E, -D, --macros, --load, --pipe and
	// %{lua: os.execute()} ran x (rpm 4.18.0) while judged allow.
	{"rpm", &execOptions{short: "DE", long: rpmRuns}},
	{"rpmbuild", &execOptions{short: "DE", long: rpmRuns}},
	{"rpmspec", &execOptions{short: "DE", long: rpmRuns}},
	// --rsync-path is the command rsync runs on the remote host, this host
	// for localhost: "rsync -e ./fakessh --rsync-path='./x; rsync' d/ h:d/"
	// ran x (rsync 3.5.0, fakessh running the command here).
	{"rsync", &execOptions{short: "e", long: []string{"--rsh", "--rsync-path"}}},
	{"rtx", &execOptions{global: true, skip: []string{"-C", "--cd", "-E", "--env", "-j", "--jobs"}, runners: miseRunners}},
	// rustc -C linker, link-args, -Z codegen-backend (ccargs.go).
	{"rustc", &execOptions{script: rustcArgs}},
	{"rview", &execOptions{script: vimArgs}},
	{"rvim", &execOptions{script: vimArgs}},
	// rvm RUBIES do CMD runs CMD with each.
	{"rvm", &execOptions{runsAfter: "do"}},
	{"rye", &execOptions{global: true, runners: pythonRun}},
	{"scl", &execOptions{global: true, runners: sclRunners}},
	// scp -S and sftp -S/-D name a program to run; -o ProxyCommand and
	// the like, for these and ssh, a command (see sshClientArgs).
	{"scp", &execOptions{script: scpArgs}},
	{"sdiff", &execOptions{long: []string{"--diff-program"}}},
	{"sed", &execOptions{script: sedArgs}},
	{"sftp", &execOptions{script: sftpArgs}},
	{"singularity", &execOptions{global: true, runners: singularityRunners}},
	{"snap", &execOptions{global: true, runners: snapRunners}},
	{"sort", &execOptions{long: []string{"--compress-program"}}},
	// split --filter writes each piece to a shell command.
	{"split", &execOptions{long: []string{"--filter"}}},
	// sqlite3's .shell, .system and pipes run commands (see sqliteArgs).
	{"sqlite3", &execOptions{script: sqliteArgs}},
	// strace -o '|CMD' pipes the trace to CMD.
	// ssh HOST CMD runs CMD on HOST, which may be this host.
	{"ssh", &execOptions{script: sshArgs}},
	{"strace", &execOptions{script: straceArgs}},
	// svn's editor, diff and diff3 programs, and --config-option
	// (helpers, tunnels) or --config-dir setting them (svnargs.go).
	{"svn", &execOptions{script: svnArgs}},
	{"tar", &execOptions{short: "IF", oldStyle: true,
		long:        []string{"--use-compress-program", "--to-command", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command"},
		valuePrefix: nameTable[string]{{"--checkpoint-action", "exec="}}}},
	// tmux runs shell commands in its server (see tmuxArgs).
	{"tmux", &execOptions{script: tmuxArgs}},
	{"tnftp", &execOptions{script: ftpArgs}},
	{"toolbox", &execOptions{global: true, skip: []string{"--log-level"}, runners: toolboxRunners}},
	{"tox", &execOptions{global: true, skip: []string{"-c", "--conf", "--root", "--workdir"}, runners: toxRunners}},
	{"uv", &execOptions{global: true, skip: uvGlobalValue, runners: uvRunners, sub: uvGroups}},
	{"uvx", &execOptions{runs: uvRun}},
	// vi and vim: -c, +CMD and --cmd run their commands (:!CMD); -S, -s,
	// -u and ex mode read commands from a file or stdin. Each name a
	// distribution installs vim or nvi under (Debian's vim.basic,
	// vim.tiny and the "editor" alternative, Fedora's vimx, the r*, e*
	// and g* names, nvi's nex and nview) reads the same way.
	{"vi", &execOptions{script: vimArgs}},
	{"view", &execOptions{script: vimArgs}},
	{"vim", &execOptions{script: vimArgs}},
	{"vim.athena", &execOptions{script: vimArgs}},
	{"vim.basic", &execOptions{script: vimArgs}},
	{"vim.gtk", &execOptions{script: vimArgs}},
	{"vim.gtk3", &execOptions{script: vimArgs}},
	{"vim.motif", &execOptions{script: vimArgs}},
	{"vim.nox", &execOptions{script: vimArgs}},
	{"vim.tiny", &execOptions{script: vimArgs}},
	{"vimdiff", &execOptions{script: vimArgs}},
	{"vimx", &execOptions{script: vimArgs}},
	{"volta", &execOptions{global: true, runners: voltaRunners}},
	// wget --use-askpass, -e use_askpass, --config (toolopts.go).
	{"wget", &execOptions{script: wgetArgs}},
	{"yarn", &execOptions{global: true, skip: []string{"--cwd"}, runners: yarnRunners}},
	// zip -TT (--unzip-command) runs a command to test the archive;
	// -T alone tests with unzip, taken as stricter for a -T cluster.
	{"zip", &execOptions{short: "T", long: []string{"--unzip-command"}}},
}

// rpmRuns are rpm's long options that expand macros or name a file of
// them, or pipe its output to a command; gpgRuns gpg's that name a
// program it runs or a file of options.
var (
	rpmRuns = []string{"--eval", "--define", "--predefine", "--macros", "--load", "--pipe", "--rcfile"}
	gpgRuns = []string{"--photo-viewer", "--exec-path", "--agent-program", "--dirmngr-program", "--keyboxd-program", "--options"}
)

// dockerGlobalValue, kubectlGlobalValue and uvGlobalValue are the global
// options of docker (podman), kubectl and uv whose value is the next word.
var (
	dockerGlobalValue  = []string{"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"}
	kubectlGlobalValue = []string{"-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user", "--token", "--as"}
	uvGlobalValue      = []string{"--directory", "--project", "--cache-dir", "--config-file", "--color", "--python-preference", "--allow-insecure-host"}
)

// gitSubcommandExecOptions are the git subcommands whose options or
// operands name a command git runs: a git allow rule says nothing about
// that command.
var gitSubcommandExecOptions = nameTable[*execOptions]{
	{"archive", &execOptions{long: []string{"--exec"}}},
	{"bisect", &execOptions{runsAfter: "run"}},
	{"clone", &execOptions{short: "u", long: []string{"--upload-pack"}}},
	{"difftool", &execOptions{short: "x", long: []string{"--extcmd", "--tool"}}},
	{"fetch", &execOptions{long: []string{"--upload-pack"}}},
	{"grep", &execOptions{short: "O", long: []string{"--open-files-in-pager"}}},
	{"ls-remote", &execOptions{long: []string{"--upload-pack"}}},
	{"mergetool", &execOptions{long: []string{"--tool"}}},
	{"pull", &execOptions{long: []string{"--upload-pack"}}},
	{"push", &execOptions{long: []string{"--receive-pack", "--exec"}}},
	{"rebase", &execOptions{short: "x", long: []string{"--exec"}}},
	{"submodule", &execOptions{runsAfter: "foreach"}},
}

// execOptionsIn judges the options of ws, a command of a program with spec,
// that run a command.
func (a *analysis) execOptionsIn(spec *execOptions, ws []word, depth int) Decision {
	if spec.script != nil {
		return spec.script(a, ws, depth)
	}
	if spec.runs != nil {
		return a.runner(spec.runs, ws, depth)
	}
	d := Decision(0)
	if spec.anywhere != nil {
		d = a.anywhereOptions(spec, ws, depth)
	}
	// unknown: a global option was met that may take the next word.
	unknown := false
	found := func(opt string, value *word) {
		d = Max(d, a.unanalysable(ws[0].value+" "+opt+" runs a command"))
		if value == nil || !value.static {
			return
		}
		cmd := value.value
		if spec.configValue {
			_, cmd, _ = strings.Cut(cmd, "=")
			cmd = strings.TrimPrefix(cmd, "!")
		}
		d = Max(d, a.forbiddenIn(cmd, depth))
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue // dynamic: the command is not plain already
		}
		v := w.value
		switch {
		case spec.global && !strings.HasPrefix(v, "-"):
			// The subcommand: its options are its own.
			if r, ok := spec.runners.lookup(v); ok {
				if spec.envPrefix {
					ws = cutEnvPrefix(ws, i)
				}
				return Max(d, a.runner(r, ws[i:], depth))
			}
			if sub, _ := spec.sub.lookup(v); sub != nil {
				d = Max(d, a.execOptionsIn(sub, ws[i:], depth))
			} else if spec.implicit != nil && !slices.Contains(spec.commands, v) {
				// ws[i-1], the word before, stands for the runner.
				d = Max(d, a.runner(spec.implicit, ws[i-1:], depth))
			}
			if r := runnerAfterUnknown(ws, i, unknown, spec.runners); r != "" {
				d = Max(d, a.unanalysable(ws[0].value+": an option before "+v+" may take it for its value, and "+r+" be the subcommand"))
				d = Max(d, a.probe(ws, depth))
			}
			return d
		case spec.runsAfter != "" && v == spec.runsAfter:
			rest := ws[i+1:]
			if slices.ContainsFunc(rest, func(w word) bool { return !w.static }) {
				found(v, nil)
				return d
			}
			cmd := make([]string, len(rest))
			for k, w := range rest {
				cmd[k] = w.value
			}
			// bisect run's operands are an argv, foreach's a script:
			// joined, either reads as the command it runs.
			found(v, &word{value: strings.Join(cmd, " "), static: true})
			return d
		case strings.HasPrefix(v, "--"):
			// A "--" is no end of the options here: it may be the value
			// of an option the scan does not know takes one (split
			// --additional-suffix -- --filter=CMD). Scanning on judges a
			// file named like an option after a real "--" as that
			// option, which is only stricter.
			name, val, hasEq := strings.Cut(v, "=")
			opt := spec.longOption(name)
			if opt == "" {
				skip := spec.skipped(v)
				unknown = unknown || skip == 0 && !hasEq
				i += skip
				continue
			}
			value := longValue(ws, &i, val, hasEq)
			if p, ok := spec.valuePrefix.lookup(opt); ok && value != nil && value.static {
				rest, runs := strings.CutPrefix(value.value, p)
				if !runs {
					continue
				}
				value = &word{value: rest, src: rest, static: true}
			}
			found(opt, value)
		case strings.HasPrefix(v, "-") && len(v) > 1:
			j := strings.IndexAny(v[1:], spec.short)
			if spec.short == "" || j < 0 {
				skip := spec.skipped(v)
				unknown = unknown || skip == 0
				i += skip
				continue
			}
			opt := "-" + v[j+1:j+2]
			found(opt, shortValue(ws, &i, v, j+1))
		case i == 1 && spec.oldStyle && strings.ContainsAny(v, spec.short) && spec.short != "":
			found(v, nil)
		}
	}
	return d
}

// skipped returns 1 when v, an option that runs nothing, is one of spec's
// global options whose value is the next word, and 0 otherwise.
func (spec *execOptions) skipped(v string) int {
	if spec.global && slices.Contains(spec.skip, v) {
		return 1
	}
	return 0
}

// longOption returns the long option of spec that name is or abbreviates,
// or "". getopt takes a prefix as short as one letter when no other long
// option of the program starts with it (split --f=CMD): any prefix counts
// here, an ambiguous one too, which getopt refuses (stricter, and it needs
// no list of every option of every program).
func (spec *execOptions) longOption(name string) string {
	return longPrefixOf(name, spec.long)
}
