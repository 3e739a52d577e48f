package execpolicy

import (
	"cmp"
	"path"
	"slices"
	"strconv"
	"strings"
)

// unwrapKind says how a wrapper runs what it wraps.
type unwrapKind int

const (
	// runsArgv: after its options (and fixed operands) comes a command argv.
	runsArgv unwrapKind = iota + 1
	// runsShell: a shell; -c makes its first operand a script.
	runsShell
	// runsJoined: the operands are joined with spaces and run as a script
	// (eval; watch without -x).
	runsJoined
	// runsFindExec: find's -exec/-execdir/-ok/-okdir actions.
	runsFindExec
	// runsNone: the operands are no command (su's user); only scriptOpts run.
	runsNone
	// runsTrap: trap ACTION SIGNAL...: ACTION is a script the shell runs
	// on the signals.
	runsTrap
	// runsJobs: jobs -x COMMAND ARGS runs COMMAND; bash looks for -x as
	// the first argument only.
	runsJobs
	// runsFdExec: fd's -x/--exec and -X/--exec-batch (see unwrapFd).
	runsFdExec
	// runsEach: each operand is a script of its own (hyperfine CMD...);
	// with permute, options may come between them.
	runsEach
)

// wrapper describes how to skip a wrapper's options to reach what it runs.
type wrapper struct {
	kind unwrapKind
	// value are the options that take a value (in the next word unless
	// attached: -n19, --user=root).
	value []string
	// optValue are long options whose value is optional, so given only
	// attached (xargs --replace[=R]): the next word is not theirs.
	optValue []string
	// flag are the options known to take none.
	flag []string
	// noExec are options after which nothing is run (command -v).
	noExec []string
	// script are options whose value is a shell script (su -c, env -S).
	script []string
	// argvMode are options that switch a runsJoined wrapper to runsArgv
	// (watch -x).
	argvMode []string
	// shellMode are flags that switch the wrapper to run its first
	// operand as a shell script, as a shell's -c does (entr -s): unlike
	// script, they take no value of their own.
	shellMode []string
	// operands is how many operands precede the command (timeout DURATION).
	operands int
	// clears are the options that unset variables, or the whole
	// environment, for what the wrapper runs (env -u, -i; exec -c):
	// on an agent's terminal they would undo its pager settings.
	clears []string
	// assignments: NAME=VALUE words before the command are skipped (env,
	// sudo).
	assignments bool
	// numeric: -NUMBER is an option (nice -19).
	numeric bool
	// anyShort: every single-letter option is accepted as a flag (shells).
	anyShort bool
	// plusOpts: +x options exist (shells).
	plusOpts bool
	// shellOpts start a shell that, given no command, reads its commands
	// from stdin (sudo -s, doas -s).
	shellOpts []string
	// fileOpts are long options whose value is a script file the wrapper
	// runs (bash --rcfile FILE, read by an interactive shell).
	fileOpts []string
	// permute: options may follow operands, as GNU getopt without "+"
	// reads them (su USER -c CMD, script FILE -c CMD); only for runsNone,
	// whose operands run nothing, and runsEach, whose operands are all
	// scripts.
	permute bool
	// shellArgs: the operands after the first are arguments of the shell
	// the wrapper starts (su USER -- -c CMD).
	shellArgs bool
	// numOperand: a first operand that is a number precedes the command
	// (chrt PRIORITY CMD, where newer versions let PRIORITY be left out).
	numOperand bool
	// startsShellAlone: given no command, the wrapper starts an
	// interactive shell, which reads its commands from stdin (screen).
	startsShellAlone bool
	// inputCommands: given no command, the wrapper runs its input lines,
	// or the arguments after :::, as commands (parallel).
	inputCommands bool
	// inputArgs: the words of the wrapper's input become arguments of the
	// command it runs, added at the end or put in place of a replace
	// string (xargs, parallel): arguments the rules never see.
	inputArgs bool
	// endOpts are words that end the options as "--" does, the command
	// following (distrobox-enter -e CMD, nix shell -c CMD ARGS).
	endOpts []string
	// leadOperand: a first word that is no option is an operand before
	// the command, and only there (setarch ARCH, which may be left out).
	leadOperand bool
	// mpmd: a ":" word ends the command, and another follows it after
	// options of its own (mpirun -n 1 A : -n 1 B).
	mpmd bool
	// shellAfter are words after which the rest are the arguments of a
	// shell the wrapper starts (capsh -- -c CMD); againAfter words after
	// which the rest are the wrapper's own again (capsh == ...), run as
	// the program itself.
	shellAfter []string
	againAfter []string
	// unsure says why what the wrapper runs is not what its words name
	// (nix run INSTALLABLE): unanalysable, and every operand is probed
	// for a forbidden command.
	unsure string
}

// wrappers holds, by basename, how each program that wraps another
// command does it; the shells share one grammar (shells, shellWrapper).
// Unknown options make the wrapper unanalysable rather than guessed: for
// the less common wrappers too, an option not listed makes them
// uncertain, and probe still finds a forbidden command after it.
var wrappers = nameTable[*wrapper]{
	{"aprun", aprunLauncher},
	{"builtin", &wrapper{kind: runsArgv}},
	{"busybox", &wrapper{kind: runsArgv, noExec: []string{"--list", "--list-full", "--help"}}},
	{"bwrap", &wrapper{kind: runsArgv}},
	{"caffeinate", &wrapper{kind: runsArgv, value: []string{"-t", "-w"}, flag: []string{"-d", "-i", "-m", "-s", "-u"}}},
	// capsh runs bash after "--" or "-+", with the words after as its
	// arguments (capsh -- -c CMD), and itself again after "==" or "=+";
	// its options take their values attached (--user=NAME). --shell
	// names the program "--" runs: unknown, so unanalysable.
	{"capsh", &wrapper{kind: runsArgv, shellAfter: []string{"--", "-+"}, againAfter: []string{"==", "=+"},
		optValue: []string{"--addamb", "--cap-uid", "--caps", "--chroot", "--decode", "--delamb", "--drop", "--explain", "--forkfor", "--gid", "--groups",
			"--has-a", "--has-b", "--has-i", "--has-p", "--iab", "--inh", "--inmode", "--is-uid", "--is-gid", "--keep", "--killit", "--mode", "--secbits",
			"--suggest", "--supports", "--uid", "--user"},
		flag:   []string{"--current", "--has-ambient", "--has-no-new-privs", "--modes", "--no-new-privs", "--noamb", "--noenv", "--print", "--quiet", "--strict"},
		noExec: []string{"-h", "--help", "--license"}}},
	{"catchsegv", &wrapper{kind: runsArgv}},
	{"ccache", &wrapper{kind: runsArgv, noExec: []string{"-s", "--show-stats", "-z", "--zero-stats", "-C", "--clear", "-c", "--cleanup", "-M", "--max-size", "-F", "--max-files", "-p", "--show-config", "-k", "--get-config", "-o", "--set-config", "-x", "--show-compression", "-X", "--recompress", "--evict-older-than", "--print-stats", "--show-log-stats", "-V", "--version", "-h", "--help"}}},
	{"cgexec", &wrapper{kind: runsArgv, value: []string{"-g"}, flag: []string{"--sticky"}, noExec: []string{"-h", "--help"}}},
	// chpst is runit's daemontools (it is envdir, softlimit and the rest
	// when named so).
	{"chpst", &wrapper{kind: runsArgv, value: []string{"-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"}, flag: []string{"-v", "-P", "-0", "-1", "-2"}}},
	{"chronic", &wrapper{kind: runsArgv, flag: []string{"-e", "-v"}}},
	{"chroot", &wrapper{kind: runsArgv, operands: 1, value: []string{"--userspec", "--groups"}, flag: []string{"--skip-chdir"}}},
	{"chrt", &wrapper{kind: runsArgv, numeric: true, numOperand: true, flag: []string{"-b", "-d", "-f", "-i", "-o", "-r", "-R", "-v", "--batch", "--fifo", "--idle", "--other", "--rr", "--reset-on-fork", "--verbose", "-a", "--all-tasks"}, value: []string{"-T", "-P", "-D"}, noExec: []string{"-p", "--pid", "-m", "--max"}}},
	{"command", &wrapper{kind: runsArgv, flag: []string{"-p"}, noExec: []string{"-v", "-V"}}},
	{"cpulimit", &wrapper{kind: runsArgv, value: []string{"-l", "--limit"}, flag: []string{"-z", "--lazy", "-i", "--include-children", "-v", "--verbose", "-k", "--kill", "-r", "--restore"}, noExec: []string{"-p", "--pid", "-e", "--exe", "-P", "--path", "-h", "--help"}}},
	{"dbus-run-session", &wrapper{kind: runsArgv}},
	// distcc, icecc and sccache run the compiler named first: any program.
	{"distcc", &wrapper{kind: runsArgv, noExec: []string{"--help", "--version", "--show-hosts", "-j", "--show-principal", "--scan-avail"}}},
	{"doas", &wrapper{kind: runsArgv, value: []string{"-u", "-C"}, flag: []string{"-n", "-s"}, noExec: []string{"-L"}, shellOpts: []string{"-s"}}},
	{"dumb-init", &wrapper{kind: runsArgv, value: []string{"-r", "--rewrite"}, flag: []string{"-c", "--single-child", "-v", "--verbose"}, noExec: []string{"-V", "--version", "-h", "--help"}}},
	{"eatmydata", &wrapper{kind: runsArgv}},
	// entr -s, a flag, runs its one operand as a script in $SHELL
	// ("entr -sr 'CMD'"; entr 5.3 refuses more operands with -s).
	{"entr", &wrapper{kind: runsArgv, flag: []string{"-a", "-c", "-d", "-n", "-p", "-r", "-z"}, shellMode: []string{"-s"}}},
	{"env", &wrapper{kind: runsArgv, assignments: true, clears: []string{"-u", "--unset", "-i", "-", "--ignore-environment"}, value: []string{"-u", "--unset", "-C", "--chdir"}, flag: []string{"-i", "-", "--ignore-environment", "-0", "--null", "-v", "--debug", "--default-signal", "--ignore-signal", "--block-signal", "--list-signal-handling"}, script: []string{"-S", "--split-string"}, noExec: []string{"--help", "--version"}}},
	{"envdir", &wrapper{kind: runsArgv, operands: 1}},
	{"envuidgid", &wrapper{kind: runsArgv, operands: 1}},
	{"eval", &wrapper{kind: runsJoined}},
	{"exec", &wrapper{kind: runsArgv, value: []string{"-a"}, flag: []string{"-c", "-l"}, clears: []string{"-c"}}},
	{"fakeroot", &wrapper{kind: runsArgv, value: []string{"-l", "--lib", "--faked", "-s", "-i", "-b"}, flag: []string{"-u", "--unknown-is-real"}}},
	{"faketime", &wrapper{kind: runsArgv, operands: 1, value: []string{"-p", "--date-prog"}, flag: []string{"-m", "-f", "--exclude-monotonic", "--disable-shm"}}},
	{"fd", &wrapper{kind: runsFdExec}},
	// fdfind is fd as Debian and Ubuntu name it.
	{"fdfind", &wrapper{kind: runsFdExec}},
	{"fghack", &wrapper{kind: runsArgv}},
	{"find", &wrapper{kind: runsFindExec}},
	{"firejail", &wrapper{kind: runsArgv}},
	// flatpak-spawn --host runs its command on the host, outside the
	// sandbox the caller is in.
	{"flatpak-spawn", &wrapper{kind: runsArgv,
		value: []string{"--forward-fd", "--env", "--unset-env", "--directory", "--app-path", "--usr-path", "--sandbox-expose", "--sandbox-expose-ro",
			"--sandbox-expose-path", "--sandbox-expose-path-ro", "--sandbox-flag"},
		flag:   []string{"--host", "--clear-env", "--watch-bus", "--expose-pids", "--share-pids", "--latest-version", "--no-network", "--sandbox", "-v", "--verbose"},
		noExec: []string{"-h", "--help"}}},
	{"flock", &wrapper{kind: runsArgv, operands: 1, value: []string{"-w", "--timeout", "-E", "--conflict-exit-code"}, flag: []string{"-s", "--shared", "-x", "-e", "--exclusive", "-n", "--nb", "--nonblock", "-u", "--unlock", "-o", "--close", "-F", "--no-fork", "--verbose"}, script: []string{"-c", "--command"}}},
	{"gosu", &wrapper{kind: runsArgv, operands: 1}},
	// hyperfine runs each operand, and the values of its --prepare-like
	// options, through a shell (the program of -S/--shell).
	{"hyperfine", &wrapper{kind: runsEach, permute: true,
		value: []string{"-w", "--warmup", "-m", "--min-runs", "-M", "--max-runs", "-r", "--runs", "-P", "--parameter-scan", "-D", "--parameter-step-size", "-L", "--parameter-list",
			"--style", "-u", "--time-unit", "--export-asciidoc", "--export-csv", "--export-json", "--export-markdown", "--export-orgmode", "--output", "--input", "-n", "--command-name", "--sort", "--reference-name"},
		flag:   []string{"-N", "-i", "--ignore-failure", "--show-output"},
		script: []string{"-s", "--setup", "-p", "--prepare", "-C", "--conclude", "-c", "--cleanup", "--reference", "-S", "--shell"},
		noExec: []string{"-h", "--help", "-V", "--version"}}},
	{"i386", archWrapper},
	{"icecc", &wrapper{kind: runsArgv, noExec: []string{"--help", "--version", "--build-native"}}},
	{"ifne", &wrapper{kind: runsArgv, flag: []string{"-n"}}},
	{"ionice", &wrapper{kind: runsArgv, value: []string{"-c", "--class", "-n", "--classdata"}, flag: []string{"-t", "--ignore"}, noExec: []string{"-p", "--pid", "-P", "--pgid", "-u", "--uid"}}},
	{"jobs", &wrapper{kind: runsJobs}},
	{"lckdo", &wrapper{kind: runsArgv, operands: 1, value: []string{"-W"}, flag: []string{"-q", "-w"}}},
	{"linux32", archWrapper},
	{"linux64", archWrapper},
	{"ltrace", &wrapper{kind: runsArgv, value: []string{"-o", "--output", "-e", "-s", "-u", "-a", "-n", "-l", "--library", "-p"}, flag: []string{"-f", "-c", "-C", "-d", "-i", "-r", "-S", "-t", "-tt", "-ttt", "-T", "-w"}, noExec: []string{"-V", "--version", "-h", "--help"}}},
	// lxc-attach runs its command (after "--", or the first operand) in a
	// container, or the user's shell there.
	{"lxc-attach", &wrapper{kind: runsArgv, startsShellAlone: true,
		value: []string{"-n", "--name", "-a", "--arch", "-s", "--namespaces", "-L", "--pty-log", "-v", "--set-var", "--keep-var", "-f", "--rcfile",
			"-u", "--uid", "-g", "--gid", "-c", "--context", "-o", "--logfile", "-l", "--logpriority", "-P", "--lxcpath"},
		optValue: []string{"--elevated-privileges"},
		flag:     []string{"-e", "--elevated-privileges", "-R", "--remount-sys-proc", "--clear-env", "--keep-env", "-q", "--quiet"},
		noExec:   []string{"-?", "--help", "--usage", "--version"}}},
	{"mpiexec", mpiLauncher},
	{"mpiexec.hydra", mpiLauncher},
	{"mpiexec.mpich", mpiLauncher},
	{"mpiexec.openmpi", mpiLauncher},
	{"mpirun", mpiLauncher},
	{"mpirun.mpich", mpiLauncher},
	{"mpirun.openmpi", mpiLauncher},
	// newgrp GROUP starts a shell, which reads stdin.
	{"newgrp", &wrapper{kind: runsNone, flag: []string{"-", "-l"}}},
	{"nice", &wrapper{kind: runsArgv, numeric: true, value: []string{"-n", "--adjustment"}}},
	{"nocache", &wrapper{kind: runsArgv, value: []string{"-n"}}},
	{"nohup", &wrapper{kind: runsArgv}},
	{"nsenter", &wrapper{kind: runsArgv, value: []string{"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-R", "--root", "-W", "--wd"}, flag: []string{"-a", "--all", "-m", "--mount", "-u", "--uts", "-i", "--ipc", "-n", "--net", "-p", "--pid", "-U", "--user", "-C", "--cgroup", "-T", "--time", "-r", "-w", "-F", "--no-fork", "--preserve-credentials"}}},
	{"numactl", &wrapper{kind: runsArgv}},
	{"orterun", mpiLauncher},
	// parallel runs its command words, joined, through a shell.
	{"parallel", &wrapper{kind: runsJoined, inputCommands: true, inputArgs: true, value: []string{"-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file"}, flag: []string{"-k", "--keep-order", "-q", "--quote"}}},
	// perf SUBCOMMAND [OPTIONS] CMD...: stat, record, trace and others
	// run the command after their options. Any subcommand is taken for
	// one that does: the options of those that run none are unknown, and
	// their operands are judged as a command, which is only stricter.
	{"perf", &wrapper{kind: runsArgv, operands: 1,
		value: []string{"-e", "--event", "-o", "--output", "-F", "--freq", "-c", "--count", "-C", "--cpu", "-G", "--cgroup", "-I", "--interval-print", "-r", "--repeat", "-x", "--field-separator",
			"-m", "--mmap-pages", "--call-graph", "-t", "--tid", "-p", "--pid", "-u", "--uid", "-D", "--delay", "--debug", "--exec-path", "--buildid-dir", "--pre", "--post", "--filter", "--duration"},
		flag: []string{"-a", "--all-cpus", "-g", "-v", "--verbose", "-q", "--quiet", "-n", "--null", "-d", "--detailed", "-s", "--no-inherit", "-i", "-A", "--no-aggr", "--no-buffering", "-B", "--big-num", "-R", "--raw-samples", "-T", "--timestamp", "-P", "--per-thread", "--no-pager", "--paginate"},
		// -p attaches to a process, but a command after it still runs
		// (perf record -p PID -- sleep 5 records for as long).
		noExec: []string{"-h", "--help", "--version"}}},
	{"pgrphack", &wrapper{kind: runsArgv}},
	{"pkexec", &wrapper{kind: runsArgv, value: []string{"--user"}, flag: []string{"--disable-internal-agent", "--keep-cwd"}, noExec: []string{"--version", "--help"}}},
	{"prlimit", &wrapper{kind: runsArgv, noExec: []string{"-p", "--pid"}}},
	// proot -q's value is the emulator command it runs the guest under.
	{"proot", &wrapper{kind: runsArgv, startsShellAlone: true,
		value: []string{"-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-w", "--pwd", "--cwd", "-v", "--verbose", "-k", "--kernel-release", "-i",
			"--change-id", "-R", "-S"},
		flag:   []string{"-0", "--root-id"},
		script: []string{"-q", "--qemu"},
		noExec: []string{"-V", "--version", "--about", "-h", "--help", "--usage"}}},
	{"proxychains", &wrapper{kind: runsArgv, flag: []string{"-q"}, value: []string{"-f"}}},
	{"proxychains4", &wrapper{kind: runsArgv, flag: []string{"-q"}, value: []string{"-f"}}},
	{"prun", mpiLauncher},
	// run0 is systemd's sudo.
	{"run0", &wrapper{kind: runsArgv, value: []string{"-u", "--user", "-g", "--group", "-D", "--chdir", "--setenv", "--nice", "--unit", "--property", "--description", "--slice", "--machine", "--background"},
		flag: []string{"--no-ask-password", "--slice-inherit"}}},
	// runcon CONTEXT CMD; with -u, -r, -t, -l or -c there is no CONTEXT,
	// so those are unknown, and the operands probed.
	{"runcon", &wrapper{kind: runsArgv, operands: 1, noExec: []string{"--help", "--version"}}},
	// runuser -u USER runs a command as su -c runs a script.
	{"runuser", &wrapper{kind: runsArgv, value: []string{"-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"},
		flag:   []string{"-", "-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f", "--fast"},
		script: []string{"-c", "--command", "--session-command"}}},
	{"s6-applyuidgid", &wrapper{kind: runsArgv, value: []string{"-u", "-g", "-G"}, flag: []string{"-U", "-z"}}},
	{"s6-envdir", &wrapper{kind: runsArgv, operands: 1, value: []string{"-c"}, flag: []string{"-I", "-i", "-n", "-f", "-L"}}},
	{"s6-envuidgid", &wrapper{kind: runsArgv, operands: 1, value: []string{"-D"}, flag: []string{"-u", "-g", "-B", "-n", "-i"}}},
	{"s6-fghack", &wrapper{kind: runsArgv}},
	{"s6-setlock", &wrapper{kind: runsArgv, operands: 1, value: []string{"-t", "-d"}, flag: []string{"-n", "-N", "-r", "-w"}}},
	{"s6-setsid", &wrapper{kind: runsArgv, value: []string{"-d"}, flag: []string{"-s", "-b", "-f", "-g", "-i", "-I", "-q"}}},
	{"s6-setuidgid", &wrapper{kind: runsArgv, operands: 1}},
	{"s6-softlimit", &wrapper{kind: runsArgv, value: softlimitValue}},
	{"salloc", sallocLauncher},
	{"sandbox-exec", &wrapper{kind: runsArgv, value: []string{"-f", "-p", "-n", "-D"}}},
	{"sbatch", sbatchLauncher},
	{"sccache", &wrapper{kind: runsArgv, noExec: []string{"-s", "--show-stats", "--show-adv-stats", "-z", "--zero-stats", "--start-server", "--stop-server",
		"--dist-auth", "--dist-status", "--package-toolchain", "-h", "--help", "-V", "--version"}}},
	// schroot runs its command (after "--") in a chroot, or a login shell.
	{"schroot", &wrapper{kind: runsArgv, startsShellAlone: true,
		value:  []string{"-c", "--chroot", "-u", "--user", "-d", "--directory", "-n", "--session-name", "-o", "--option"},
		flag:   []string{"-a", "--all", "-p", "--preserve-environment", "-q", "--quiet", "-v", "--verbose", "--automatic-session", "--force", "-r", "--run-session"},
		noExec: []string{"-h", "--help", "-V", "--version", "-l", "--list", "-i", "--info", "--config", "--location", "-b", "--begin-session", "-e", "--end-session", "--recover-session"}}},
	// screen [OPTIONS] CMD ARGS runs CMD in a new window; without one,
	// the shell of -s or $SHELL, reading the terminal. -X sends a screen
	// command (exec, stuff) to a session and -c reads a configuration:
	// both are unknown options, so unanalysable.
	{"screen", &wrapper{kind: runsArgv, startsShellAlone: true,
		value:  []string{"-S", "-e", "-h", "-p", "-T", "-t"},
		flag:   []string{"-a", "-A", "-d", "-D", "-m", "-L", "-l", "-ln", "-q", "-U", "-O", "-i", "-f", "-fn", "-fa", "-R", "-RR"},
		script: []string{"-s"},
		noExec: []string{"-r", "-x", "-ls", "-list", "-wipe", "-v", "-version", "-help", "-Q"}}},
	// script -c runs a command; without it, an interactive shell.
	{"script", &wrapper{kind: runsNone, permute: true, value: []string{"-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing", "-E", "--echo", "-m", "--logging-format"},
		flag: []string{"-a", "--append", "-e", "--return", "-f", "--flush", "-q", "--quiet"}, script: []string{"-c", "--command"}}},
	{"setarch", &wrapper{kind: runsArgv, leadOperand: true, startsShellAlone: true, flag: setarchFlags, noExec: setarchNoExec}},
	{"setlock", &wrapper{kind: runsArgv, operands: 1, flag: []string{"-n", "-N", "-x", "-X"}}},
	{"setpriv", &wrapper{kind: runsArgv, value: []string{"--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid", "--rgid", "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"}, flag: []string{"--nnp", "--no-new-privs", "--clear-groups", "--keep-groups", "--init-groups", "--reset-env"}, noExec: []string{"-d", "--dump", "-h", "--help", "-V", "--version"}}},
	{"setsid", &wrapper{kind: runsArgv, flag: []string{"-c", "--ctty", "-f", "--fork", "-w", "--wait"}}},
	{"setuidgid", &wrapper{kind: runsArgv, operands: 1}},
	// sg GROUP [-c] CMD runs CMD through /bin/sh -c.
	{"sg", &wrapper{kind: runsJoined, operands: 1, flag: []string{"-"}, script: []string{"-c"}}},
	{"softlimit", &wrapper{kind: runsArgv, value: softlimitValue}},
	{"srun", srunLauncher},
	{"ssh-agent", &wrapper{kind: runsArgv, value: []string{"-a", "-E", "-O", "-P", "-t"}, flag: []string{"-c", "-s", "-D", "-d"}, noExec: []string{"-k"}}},
	{"sshpass", &wrapper{kind: runsArgv, value: []string{"-p", "-f", "-d", "-P"}, flag: []string{"-e", "-v"}, noExec: []string{"-h", "-V"}}},
	{"stdbuf", &wrapper{kind: runsArgv, value: []string{"-i", "--input", "-o", "--output", "-e", "--error"}}},
	// strace -p PID CMD and ltrace -p PID CMD attach to PID and still run
	// CMD: -p takes a value and ends nothing.
	{"strace", &wrapper{kind: runsArgv, value: []string{"-o", "--output", "-e", "-s", "--string-limit", "-u", "--user", "-E", "--env", "-a", "-S", "-P", "-I", "-O", "-X", "-b", "-p", "--attach"}, flag: []string{"-f", "-ff", "-c", "-C", "-d", "-D", "-i", "-k", "-q", "-qq", "-r", "-t", "-tt", "-ttt", "-T", "-v", "-w", "-x", "-xx", "-y", "-yy", "-z", "-Z", "-n", "-A", "-F"}, noExec: []string{"-V", "--version", "-h", "--help"}}},
	{"su", &wrapper{kind: runsNone, permute: true, shellArgs: true, value: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"},
		flag:   []string{"-", "-l", "--login", "-m", "-p", "--preserve-environment", "-f", "--fast", "-P", "--pty"},
		script: []string{"-c", "--command", "--session-command"}}},
	{"su-exec", &wrapper{kind: runsArgv, operands: 1}},
	{"sudo", &wrapper{kind: runsArgv, assignments: true,
		value:     []string{"-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout", "-R", "--chroot"},
		flag:      []string{"-A", "--askpass", "-b", "--background", "-E", "--preserve-env", "-H", "--set-home", "-i", "--login", "-k", "--reset-timestamp", "-K", "--remove-timestamp", "-n", "--non-interactive", "-P", "--preserve-groups", "-S", "--stdin", "-s", "--shell", "-B", "--bell", "-N", "--no-update"},
		noExec:    []string{"-e", "--edit", "-l", "--list", "-V", "--version", "-v", "--validate", "--help"},
		shellOpts: []string{"-i", "--login", "-s", "--shell"}}},
	{"systemd-cat", &wrapper{kind: runsArgv, value: []string{"-t", "--identifier", "-p", "--priority", "--stderr-priority", "--level-prefix", "--namespace"}, noExec: []string{"-h", "--help", "--version"}}},
	{"systemd-inhibit", &wrapper{kind: runsArgv, value: []string{"--what", "--who", "--why", "--mode"}, flag: []string{"--no-pager", "--no-legend", "--no-ask-password"}, noExec: []string{"-h", "--help", "--version", "--list"}}},
	// systemd-nspawn runs its command in a container, or a shell there.
	{"systemd-nspawn", &wrapper{kind: runsArgv, startsShellAlone: true,
		value: []string{"-D", "--directory", "--template", "-i", "--image", "--oci-bundle", "-M", "--machine", "-u", "--user", "--chdir", "-E", "--setenv",
			"--bind", "--bind-ro", "--tmpfs", "--overlay", "--overlay-ro", "--inaccessible", "-S", "--slice", "--property", "--uuid", "--capability",
			"--drop-capability", "--network-interface", "--network-macvlan", "--network-ipvlan", "--network-bridge", "--network-zone", "-p", "--port",
			"--link-journal", "--resolv-conf", "--timezone", "--console", "--register", "--personality", "-Z", "--selinux-context", "-L",
			"--selinux-apifs-context", "--kill-signal", "--hostname", "--rlimit", "--settings"},
		optValue: []string{"--volatile", "--private-users", "--no-new-privileges"},
		flag:     []string{"-x", "--ephemeral", "-q", "--quiet", "-a", "--as-pid2", "-b", "--boot", "-n", "--network-veth", "--private-network", "-U", "--keep-unit", "--read-only", "-P", "--pipe"},
		noExec:   []string{"-h", "--help", "--version"}}},
	{"systemd-run", &wrapper{kind: runsArgv, value: []string{"-u", "--unit", "-p", "--property", "-E", "--setenv", "-M", "--machine", "--description", "--slice", "--working-directory"}, flag: []string{"--user", "--system", "--scope", "-P", "--pipe", "-q", "--quiet", "--wait", "-G", "--collect", "-t", "--pty", "-d", "--same-dir", "--no-block"}}},
	{"taskset", &wrapper{kind: runsArgv, operands: 1, flag: []string{"-a", "--all-tasks", "-c", "--cpu-list"}, noExec: []string{"-p", "--pid"}}},
	{"time", &wrapper{kind: runsArgv, value: []string{"-f", "--format", "-o", "--output"}, flag: []string{"-p", "--portability", "-a", "--append", "-v", "--verbose", "-q", "--quiet"}}},
	{"timeout", &wrapper{kind: runsArgv, operands: 1, value: []string{"-k", "--kill-after", "-s", "--signal"}, flag: []string{"--preserve-status", "--foreground", "-v", "--verbose"}}},
	{"tini", &wrapper{kind: runsArgv, value: []string{"-p", "-e"}, flag: []string{"-s", "-v", "-vv", "-vvv", "-g", "-w", "-l"}, noExec: []string{"--version", "-h"}}},
	{"torsocks", &wrapper{kind: runsArgv, flag: []string{"-i", "--isolate", "-q", "--quiet", "-d", "--debug"}, value: []string{"-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port"}}},
	// toybox is a multi-call binary as busybox is.
	{"toybox", &wrapper{kind: runsArgv, noExec: []string{"--help", "--version", "--long"}}},
	{"trap", &wrapper{kind: runsTrap, noExec: []string{"-l", "-p", "-P"}}},
	{"unbuffer", &wrapper{kind: runsArgv, flag: []string{"-p"}}},
	{"unshare", &wrapper{kind: runsArgv, flag: []string{"-m", "-u", "-i", "-n", "-p", "-U", "-C", "-T", "-f", "-r", "-c", "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--fork", "--map-root-user", "--map-current-user", "--kill-child", "--mount-proc"}, value: []string{"-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--propagation"}}},
	{"valgrind", &wrapper{kind: runsArgv}},
	{"watch", &wrapper{kind: runsJoined, value: []string{"-n", "--interval", "-q", "--equexit"},
		flag:     []string{"-b", "--beep", "-c", "--color", "-C", "--no-color", "-d", "--differences", "-e", "--errexit", "-g", "--chgexit", "-t", "--no-title", "-w", "--no-wrap", "-p", "--precise", "-r", "--no-rerun"},
		argvMode: []string{"-x", "--exec"}}},
	// watchexec runs its operands, joined, through a shell on every change;
	// --shell names the shell program.
	{"watchexec", &wrapper{kind: runsJoined,
		value: []string{"-e", "--exts", "-w", "--watch", "-W", "--watch-non-recursive", "-i", "--ignore", "-f", "--filter",
			"-d", "--debounce", "-s", "--signal", "--stop-signal", "--stop-timeout", "-E", "--env", "--workdir",
			"--project-origin", "--on-busy-update", "--delay-run", "--poll", "--emit-events-to", "--ignore-file", "--filter-file"},
		flag: []string{"-c", "--clear", "-r", "--restart", "-n", "-p", "--postpone", "-N", "--notify", "-1", "--no-vcs-ignore",
			"--no-project-ignore", "--no-global-ignore", "--no-default-ignore", "--no-meta", "-q", "--quiet", "-v", "--verbose"},
		script: []string{"--shell"}}},
	{"with-lock-ex", &wrapper{kind: runsArgv, operands: 1, flag: []string{"-w", "-q", "-f"}}},
	{"x86_64", archWrapper},
	{"xargs", &wrapper{kind: runsArgv, inputArgs: true,
		value:    []string{"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"},
		optValue: []string{"--eof", "--replace", "--max-lines"},
		flag:     []string{"-0", "--null", "-o", "--open-tty", "-p", "--interactive", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit", "-e", "-i", "-l"}}},
	{"xvfb-run", &wrapper{kind: runsArgv, value: []string{"-n", "--server-num", "-e", "--error-file", "-f", "--auth-file", "-p", "--xauth-protocol", "-s", "--server-args", "-w", "--wait"}, flag: []string{"-a", "--auto-servernum", "-l", "--listen-tcp"}}},
}

// shells are the programs whose -c runs a script; they share one option
// grammar (bash and its relatives).
var shells = []string{"bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "yash", "posh"}

// shellWrapper is the option grammar common to shells: every letter is a
// flag except o and O, which take a shell-option name.
//
// bash's GNU long options (bash --help) go before the short ones; --rcfile
// and --init-file name a file only an interactive shell reads. A long
// option after a short one is an error for bash, but read as an option
// here: the script is judged either way.
var shellWrapper = wrapper{kind: runsShell, anyShort: true, plusOpts: true,
	value: []string{"-o", "+o", "-O", "+O"},
	flag: []string{"--debug", "--debugger", "--dump-po-strings", "--dump-strings", "--login", "--noediting",
		"--noprofile", "--norc", "--posix", "--pretty-print", "--restricted", "--verbose"},
	noExec:   []string{"--help", "--version"},
	fileOpts: []string{"--rcfile", "--init-file"}}

// lookupWrapper returns how program (by basename) wraps another command.
func lookupWrapper(program string) (*wrapper, bool) {
	w := lookupProgram(path.Base(program)).wrapper
	return w, w != nil
}

// dashOpts and plusOpts hold "-c" and "+c" for every ASCII letter and
// digit c, in the order of alnumIndex, so that splitting an option cluster
// into options cuts each from a constant rather than allocating it (or
// building a table of every byte when the first cluster is met).
const (
	dashOpts = "-0-1-2-3-4-5-6-7-8-9-A-B-C-D-E-F-G-H-I-J-K-L-M-N-O-P-Q-R-S-T-U-V-W-X-Y-Z-a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z"
	plusOpts = "+0+1+2+3+4+5+6+7+8+9+A+B+C+D+E+F+G+H+I+J+K+L+M+N+O+P+Q+R+S+T+U+V+W+X+Y+Z+a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p+q+r+s+t+u+v+w+x+y+z"
)

// shortOpt returns sign (- or +) followed by c.
func shortOpt(sign, c byte) string {
	i := alnumIndex(c)
	switch {
	case i < 0:
		return string([]byte{sign, c})
	case sign == '+':
		return plusOpts[2*i : 2*i+2]
	}
	return dashOpts[2*i : 2*i+2]
}

// alnumIndex returns the place of c among the digits, upper-case and then
// lower-case ASCII letters, or -1.
func alnumIndex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return 10 + int(c-'A')
	case c >= 'a' && c <= 'z':
		return 36 + int(c-'a')
	}
	return -1
}

// unwrapped is what one wrapper invocation runs.
type unwrapped struct {
	// argvs are the commands run directly.
	argvs [][]word
	// scripts are shell scripts run (sh -c, su -c, eval, watch).
	scripts []word
	// uncertain is set when an option was not understood: what follows
	// could be anything.
	uncertain string
	// stdinScript: the wrapper runs a shell that reads its commands from
	// stdin (sh, bash -s, sudo -s, su without -c).
	stdinScript bool
	// scriptFile is the script file a shell runs (sh x.sh), whose
	// contents the analysis does not read.
	scriptFile *word
	// unplain is set when the wrapper runs what it wraps otherwise than
	// it reads (bash -k, env NAME=VALUE): that is analysed, but cannot
	// allow.
	unplain string
	// sets are the NAME=VALUE operands (env, sudo) that set a variable
	// for what the wrapper runs.
	sets []string
	// clears names the option (wrapper.clears) that unsets variables for
	// what the wrapper runs.
	clears string
	// inputArgsTo is the command word of what the wrapper runs with
	// arguments from its input (wrapper.inputArgs); nil otherwise.
	inputArgsTo *word
}

// keywordOption is why a shell's -k (-o keyword) leaves its script
// unanalysable.
const keywordOption = "-k makes NAME=VALUE arguments environment assignments"

// unwrap parses the options of wrapper spec at ws[0] and returns what it
// runs.
func unwrap(spec *wrapper, ws []word) unwrapped {
	var out unwrapped
	switch spec.kind {
	case runsFindExec:
		return unwrapFind(ws)
	case runsFdExec:
		return unwrapFd(ws)
	case runsJobs:
		if len(ws) > 2 && ws[1].static && ws[1].value == "-x" {
			out.argvs = append(out.argvs, ws[2:])
		}
		return out
	}
	kind := spec.kind
	operands := spec.operands
	hasC := false
	// startsShell: an option that makes the wrapper start a shell reading
	// stdin when no command follows (sudo -s, bash -s).
	startsShell := false
	// permuted are the operands of a permute wrapper met among its
	// options.
	var permuted []word
	out.uncertain = spec.unsure
	i := 1
	if spec.leadOperand && len(ws) > 1 && ws[1].static && !strings.HasPrefix(ws[1].value, "-") {
		i++
	}
opts:
	for i < len(ws) {
		w := ws[i]
		if !w.static {
			out.uncertain = "dynamic option " + w.src
			return out
		}
		v := w.value
		switch {
		case slices.Contains(spec.noExec, v):
			// A whole word first: screen's -ls is no -l -s cluster.
			return unwrapped{}
		case slices.Contains(spec.shellAfter, v):
			out.shellArgsOf(ws[i+1:])
			return out
		case slices.Contains(spec.againAfter, v):
			out.argvs = append(out.argvs, append([]word{ws[0]}, ws[i+1:]...))
			return out
		case slices.Contains(spec.endOpts, v):
			i++
			break opts
		case !strings.HasPrefix(v, "--") && len(v) > 2 && slices.Contains(spec.value, v):
			// A single-dash long option with a value (mpirun -np 4).
			i += 2
			continue
		case slices.Contains(spec.flag, v):
			startsShell = startsShell || slices.Contains(spec.shellOpts, v)
			out.noteClears(spec, v)
			i++
			continue
		case spec.assignments && !strings.HasPrefix(v, "-") && strings.Contains(v, "="):
			out.assignment(v)
			i++
			continue
		case v == "--":
			// The fixed operands follow it (timeout -- 5 CMD), and GNU
			// env still applies NAME=VALUE operands after it.
			i += 1 + operands
			for spec.assignments && i < len(ws) && ws[i].static && strings.Contains(ws[i].value, "=") {
				out.assignment(ws[i].value)
				i++
			}
			break opts
		case v == "-" && spec.kind == runsShell:
			// A shell's lone "-" ends its options as "--" does (bash -
			// reads its script from stdin; bash - FILE runs FILE).
			i++
			break opts
		case len(v) > 1 && (v[0] == '-' || spec.plusOpts && v[0] == '+') && (!spec.anyShort || lettersOnly(v[1:])):
			// A shell rejects an option word with other characters; taking
			// it as the script judges what it might have meant.
		default:
			if operands > 0 {
				operands--
				i++
				continue
			}
			if spec.permute {
				permuted = append(permuted, w)
				i++
				continue
			}
			break opts
		}
		if spec.numeric && allDigits(v[1:]) {
			i++
			continue
		}
		if strings.HasPrefix(v, "--") {
			name, _, hasEq := strings.Cut(v, "=")
			if full := spec.longAbbrev(name); full != "" {
				// GNU getopt takes a unique prefix: judge the option it
				// stands for, but never allow through a guess.
				name = full
				out.unplain = "abbreviated option " + v
			}
			out.noteClears(spec, name)
			switch {
			case slices.Contains(spec.noExec, name):
				return unwrapped{}
			case slices.Contains(spec.argvMode, name):
				kind = runsArgv
			case slices.Contains(spec.shellMode, name):
				kind, hasC = runsShell, true
			case slices.Contains(spec.fileOpts, name):
				if !hasEq {
					i++
					if i >= len(ws) {
						return out
					}
					out.scriptFile = &ws[i]
				} else {
					_, val, _ := strings.Cut(w.value, "=")
					out.scriptFile = &word{value: val, src: val, static: true, literal: w.literal}
				}
			case slices.Contains(spec.script, name):
				if !hasEq {
					i++
					if i >= len(ws) {
						return out
					}
					out.scripts = append(out.scripts, ws[i])
				} else {
					_, val, _ := strings.Cut(w.value, "=")
					out.scripts = append(out.scripts, word{value: val, src: val, static: true, literal: w.literal})
				}
			case slices.Contains(spec.value, name):
				if !hasEq {
					i++
				}
			case slices.Contains(spec.flag, name), slices.Contains(spec.optValue, name):
			default:
				out.uncertain = "unknown option " + v
				return out
			}
			i++
			continue
		}
		// A cluster of short options: -abc, -n19, -ec. A shell's -o and
		// -O take the next word each, wherever they are in the cluster
		// (bash -oc posix SCRIPT); values counts those words.
		sign := v[0]
		values := 0
		for j := 1; j < len(v); j++ {
			opt := shortOpt(sign, v[j])
			rest := v[j+1:]
			out.noteClears(spec, opt)
			switch {
			case slices.Contains(spec.noExec, opt):
				return unwrapped{}
			case slices.Contains(spec.argvMode, opt):
				kind = runsArgv
				continue
			case slices.Contains(spec.shellMode, opt):
				// Read as a shell with -c: the first operand is the script.
				kind, hasC = runsShell, true
				continue
			case spec.kind == runsShell && opt == "-c":
				hasC = true
				continue
			case spec.kind == runsShell && opt == "-k":
				out.unplain = keywordOption
				continue
			case spec.kind == runsShell && opt == "-s" || slices.Contains(spec.shellOpts, opt):
				startsShell = true
				continue
			case slices.Contains(spec.script, opt):
				if rest != "" {
					out.scripts = append(out.scripts, word{value: rest, src: rest, static: true, literal: w.literal})
				} else if i+1 < len(ws) {
					i++
					out.scripts = append(out.scripts, ws[i])
				}
			case spec.kind == runsShell && slices.Contains(spec.value, opt):
				values++
				if opt == "-o" && i+values < len(ws) && ws[i+values].value == "keyword" {
					out.unplain = keywordOption
				}
				continue
			case slices.Contains(spec.value, opt):
				if rest == "" {
					i++
				}
			case slices.Contains(spec.flag, opt) || spec.anyShort:
				continue
			default:
				out.uncertain = "unknown option " + opt
				return out
			}
			break
		}
		i += 1 + values
	}
	if spec.numOperand && i < len(ws) && allDigits(ws[i].value) {
		i++
	}
	// An option value may have been skipped past the last word.
	rest := ws[min(i, len(ws)):]
	if spec.shellArgs {
		if args := append(permuted, rest...); len(args) > 1 {
			out.shellArgsOf(args[1:])
		}
	}
	switch {
	case kind == runsShell && !hasC:
		// The script comes from stdin or a file: the analysis sees
		// neither (a heredoc on stdin is looked at by shellStdin).
		if startsShell || len(rest) == 0 || namesStdin(rest[0]) {
			out.stdinScript = true
		} else if out.scriptFile == nil {
			out.scriptFile = &rest[0]
		}
	case spec.inputCommands && (len(rest) == 0 || strings.HasPrefix(rest[0].value, ":::")):
		out.unplain = "runs its input lines or arguments as commands"
		for _, w := range rest {
			if !strings.HasPrefix(w.value, ":::") {
				out.scripts = append(out.scripts, w)
			}
		}
	case kind == runsNone && len(out.scripts) == 0,
		(kind == runsArgv || kind == runsJoined) && (startsShell || spec.startsShellAlone) && len(rest) == 0:
		out.stdinScript = true // su, sudo -s: an interactive shell
	case kind == runsEach:
		out.scripts = append(append(out.scripts, permuted...), rest...)
	case len(rest) == 0:
	case kind == runsArgv && spec.mpmd:
		out.mpmd(spec, rest)
	case kind == runsArgv:
		out.argvs = append(out.argvs, rest)
		if spec.inputArgs {
			out.inputArgsTo = &rest[0]
		}
	case kind == runsShell:
		out.scripts = append(out.scripts, rest[0])
	case kind == runsJoined:
		out.scripts = append(out.scripts, joinWords(rest))
		if spec.inputArgs {
			out.inputArgsTo = &rest[0]
		}
	case kind == runsTrap:
		// With one operand, or "-" for action, the signals are reset; ""
		// ignores them.
		if len(rest) > 1 && !(rest[0].static && (rest[0].value == "-" || rest[0].value == "")) {
			out.scripts = append(out.scripts, rest[0])
		}
	}
	return out
}

// mpmd adds to out the command of rest, a wrapper's words after its
// options, up to a ":", and what each part after a ":" runs after options
// of its own, read as the wrapper (spec) reads its words.
func (out *unwrapped) mpmd(spec *wrapper, rest []word) {
	part := *spec
	part.mpmd = false
	for {
		end := slices.IndexFunc(rest, func(w word) bool { return w.static && w.value == ":" })
		if end < 0 {
			if len(rest) > 0 {
				out.argvs = append(out.argvs, rest)
			}
			return
		}
		if end > 0 {
			out.argvs = append(out.argvs, rest[:end])
		}
		// The ":" stands for the program: its options follow it.
		u := unwrap(&part, rest[end:])
		out.uncertain = cmp.Or(out.uncertain, u.uncertain)
		out.unplain = cmp.Or(out.unplain, u.unplain)
		if len(u.argvs) == 0 {
			return
		}
		rest = u.argvs[0]
	}
}

// stdinFiles are the files that are the reader's own stdin, on Linux
// and the BSDs: a shell given one as its script file reads the script
// from stdin, as given none.
var stdinFiles = []string{"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0"}

// namesStdin reports whether w, a shell's script file operand, is one of
// stdinFiles however its path is spelt (/dev/./stdin, //dev/stdin).
func namesStdin(w word) bool {
	return w.static && strings.HasPrefix(w.value, "/") && slices.Contains(stdinFiles, path.Clean(w.value))
}

// longAbbrev returns the long option of spec that name, not one itself,
// is the unique prefix of, or "". Shells take no abbreviations.
func (spec *wrapper) longAbbrev(name string) string {
	if spec.anyShort || len(name) < 3 {
		return ""
	}
	full := ""
	for _, list := range [][]string{spec.value, spec.optValue, spec.flag, spec.noExec, spec.script, spec.argvMode, spec.shellMode, spec.fileOpts} {
		for _, l := range list {
			if l == name {
				return ""
			}
			if strings.HasPrefix(l, name) && strings.HasPrefix(l, "--") {
				if full != "" && full != l {
					return "" // ambiguous: getopt refuses it
				}
				full = l
			}
		}
	}
	if slices.Contains(spec.noExec, full) {
		return "" // unknown: an abbreviation never hides what runs
	}
	return full
}

// shellArgsOf adds to out what a shell started with args runs, args being
// passed on by a wrapper (su USER ARGS).
func (out *unwrapped) shellArgsOf(args []word) {
	sh := append([]word{{value: "sh", src: "sh", static: true, literal: true}}, args...)
	u := unwrap(&shellWrapper, sh)
	out.scripts = append(out.scripts, u.scripts...)
	out.stdinScript = out.stdinScript || u.stdinScript
	out.uncertain = cmp.Or(out.uncertain, u.uncertain)
	out.unplain = cmp.Or(out.unplain, u.unplain)
	if out.scriptFile == nil {
		out.scriptFile = u.scriptFile
	}
}

// joinWords joins ws with spaces, as eval and watch do; the result is
// static only when every word is.
func joinWords(ws []word) word {
	out := word{static: true, literal: true}
	vals := make([]string, len(ws))
	srcs := make([]string, len(ws))
	for i, w := range ws {
		vals[i], srcs[i] = w.value, w.src
		out.static = out.static && w.static
		out.literal = out.literal && w.literal
	}
	out.src = strings.Join(srcs, " ")
	if out.static {
		out.value = strings.Join(vals, " ")
	}
	return out
}

// findActions are find's predicates that run a command.
var findActions = []string{"-exec", "-execdir", "-ok", "-okdir"}

// unwrapFind returns the commands of find's -exec-like actions, each ending
// at ";" or "+".
func unwrapFind(ws []word) unwrapped {
	var out unwrapped
	for i := 1; i < len(ws); i++ {
		if !ws[i].static {
			continue
		}
		if !slices.Contains(findActions, ws[i].value) {
			continue
		}
		j := i + 1
		for j < len(ws) && !(ws[j].static && (ws[j].value == ";" || ws[j].value == "+")) {
			j++
		}
		if j > i+1 {
			out.argvs = append(out.argvs, ws[i+1:j])
		}
		i = j
	}
	return out
}

// assignment notes an operand of env or sudo holding "=", which the
// command after it runs with in its environment, as after an assignment
// prefix (LD_PRELOAD=x ls). One that is not NAME=VALUE ("=", "1a=b",
// "./a=b") is judged both ways: GNU and BusyBox env take any operand with
// "=" for an assignment and run the word after it (env = rm runs rm), BSD
// env refuses it and sudo's reading differs by version; so it is skipped
// and leaves the command uncertain, for the caller to probe it as the
// command too.
func (u *unwrapped) assignment(v string) {
	if isAssignmentWord(v) {
		u.unplain = "sets " + v[:strings.IndexByte(v, '=')] + " in the environment of the command"
		u.sets = append(u.sets, v)
		return
	}
	u.uncertain = "operand " + strconv.Quote(v) + " holds \"=\" without a variable name before it: an assignment or the command"
}

// noteClears records opt when it is one of spec.clears.
func (u *unwrapped) noteClears(spec *wrapper, opt string) {
	if slices.Contains(spec.clears, opt) {
		u.clears = opt
	}
}

// isAssignmentWord reports whether s is NAME=VALUE.
func isAssignmentWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// lettersOnly reports whether s is an option cluster or long option name
// made of ASCII letters (and dashes).
func lettersOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}
