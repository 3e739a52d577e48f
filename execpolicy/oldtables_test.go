package execpolicy

import (
	"slices"
	"strings"
)

// The built-in tables as they were before they became static nameTables
// (at df8355f): maps built at run time, kept verbatim but for their names
// so that TestTablesMatchOld can check that the nameTables say exactly
// what the maps did. Only shellBuiltins differs in form: its inline
// closures became the named functions they were moved to unchanged.

// oldExecOptions is execOptions with the maps it had.
type oldExecOptions struct {
	short       string
	long        []string
	oldStyle    bool
	valuePrefix map[string]string
	global      bool
	skip        []string
	configValue bool
	sub         map[string]*oldExecOptions
	runsAfter   string
	script      func(a *analysis, ws []word, depth int) Decision
	runs        *wrapper
	runners     map[string]*wrapper
	anywhere    []string
	commands    []string
	implicit    *wrapper
	envPrefix   bool
}

// oldSubcommands is what subcommandDepth held for a tool.
type oldSubcommands struct{ nested []string }

// oldProgramFacts is programFacts with an oldExecOptions.
type oldProgramFacts struct {
	wrapper *wrapper
	danger  []int
	safe    []safeEntry
	builtin builtinCheck
	exec    *oldExecOptions
}

func oldWrappers() map[string]wrapper {
	return map[string]wrapper{
		"sudo": {kind: runsArgv, assignments: true,
			value:     []string{"-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout", "-R", "--chroot"},
			flag:      []string{"-A", "--askpass", "-b", "--background", "-E", "--preserve-env", "-H", "--set-home", "-i", "--login", "-k", "--reset-timestamp", "-K", "--remove-timestamp", "-n", "--non-interactive", "-P", "--preserve-groups", "-S", "--stdin", "-s", "--shell", "-B", "--bell", "-N", "--no-update"},
			noExec:    []string{"-e", "--edit", "-l", "--list", "-V", "--version", "-v", "--validate", "--help"},
			shellOpts: []string{"-i", "--login", "-s", "--shell"}},
		"doas":    {kind: runsArgv, value: []string{"-u", "-C"}, flag: []string{"-n", "-s"}, noExec: []string{"-L"}, shellOpts: []string{"-s"}},
		"env":     {kind: runsArgv, assignments: true, clears: []string{"-u", "--unset", "-i", "-", "--ignore-environment"}, value: []string{"-u", "--unset", "-C", "--chdir"}, flag: []string{"-i", "-", "--ignore-environment", "-0", "--null", "-v", "--debug", "--default-signal", "--ignore-signal", "--block-signal", "--list-signal-handling"}, script: []string{"-S", "--split-string"}, noExec: []string{"--help", "--version"}},
		"nice":    {kind: runsArgv, numeric: true, value: []string{"-n", "--adjustment"}},
		"nohup":   {kind: runsArgv},
		"timeout": {kind: runsArgv, operands: 1, value: []string{"-k", "--kill-after", "-s", "--signal"}, flag: []string{"--preserve-status", "--foreground", "-v", "--verbose"}},
		"stdbuf":  {kind: runsArgv, value: []string{"-i", "--input", "-o", "--output", "-e", "--error"}},
		"time":    {kind: runsArgv, value: []string{"-f", "--format", "-o", "--output"}, flag: []string{"-p", "--portability", "-a", "--append", "-v", "--verbose", "-q", "--quiet"}},
		"setsid":  {kind: runsArgv, flag: []string{"-c", "--ctty", "-f", "--fork", "-w", "--wait"}},
		"command": {kind: runsArgv, flag: []string{"-p"}, noExec: []string{"-v", "-V"}},
		"exec":    {kind: runsArgv, value: []string{"-a"}, flag: []string{"-c", "-l"}, clears: []string{"-c"}},
		"builtin": {kind: runsArgv},
		"busybox": {kind: runsArgv, noExec: []string{"--list", "--list-full", "--help"}},
		"xargs": {kind: runsArgv, inputArgs: true,
			value:    []string{"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"},
			optValue: []string{"--eof", "--replace", "--max-lines"},
			flag:     []string{"-0", "--null", "-o", "--open-tty", "-p", "--interactive", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit", "-e", "-i", "-l"}},
		"ionice":  {kind: runsArgv, value: []string{"-c", "--class", "-n", "--classdata"}, flag: []string{"-t", "--ignore"}, noExec: []string{"-p", "--pid", "-P", "--pgid", "-u", "--uid"}},
		"chrt":    {kind: runsArgv, numeric: true, numOperand: true, flag: []string{"-b", "-d", "-f", "-i", "-o", "-r", "-R", "-v", "--batch", "--fifo", "--idle", "--other", "--rr", "--reset-on-fork", "--verbose", "-a", "--all-tasks"}, value: []string{"-T", "-P", "-D"}, noExec: []string{"-p", "--pid", "-m", "--max"}},
		"taskset": {kind: runsArgv, operands: 1, flag: []string{"-a", "--all-tasks", "-c", "--cpu-list"}, noExec: []string{"-p", "--pid"}},
		"unshare": {kind: runsArgv, flag: []string{"-m", "-u", "-i", "-n", "-p", "-U", "-C", "-T", "-f", "-r", "-c", "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--fork", "--map-root-user", "--map-current-user", "--kill-child", "--mount-proc"}, value: []string{"-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--propagation"}},
		// Added in the tenth red-team round, as the table holds it.
		"watchexec": *wrappers[slices.IndexFunc(wrappers, func(r nameRow[*wrapper]) bool { return r.name == "watchexec" })].val,
		"watch": {kind: runsJoined, value: []string{"-n", "--interval", "-q", "--equexit"},
			flag:     []string{"-b", "--beep", "-c", "--color", "-C", "--no-color", "-d", "--differences", "-e", "--errexit", "-g", "--chgexit", "-t", "--no-title", "-w", "--no-wrap", "-p", "--precise", "-r", "--no-rerun"},
			argvMode: []string{"-x", "--exec"}},
		// Less common wrappers: an option not listed makes them uncertain,
		// and probe still finds a forbidden command after it.
		"chroot":           {kind: runsArgv, operands: 1, value: []string{"--userspec", "--groups"}, flag: []string{"--skip-chdir"}},
		"flock":            {kind: runsArgv, operands: 1, value: []string{"-w", "--timeout", "-E", "--conflict-exit-code"}, flag: []string{"-s", "--shared", "-x", "-e", "--exclusive", "-n", "--nb", "--nonblock", "-u", "--unlock", "-o", "--close", "-F", "--no-fork", "--verbose"}, script: []string{"-c", "--command"}},
		"strace":           {kind: runsArgv, value: []string{"-o", "--output", "-e", "-s", "--string-limit", "-u", "--user", "-E", "--env", "-a", "-S", "-P", "-I", "-O", "-X", "-b", "-p", "--attach"}, flag: []string{"-f", "-ff", "-c", "-C", "-d", "-D", "-i", "-k", "-q", "-qq", "-r", "-t", "-tt", "-ttt", "-T", "-v", "-w", "-x", "-xx", "-y", "-yy", "-z", "-Z", "-n", "-A", "-F"}, noExec: []string{"-V", "--version", "-h", "--help"}},
		"ltrace":           {kind: runsArgv, value: []string{"-o", "--output", "-e", "-s", "-u", "-a", "-n", "-l", "--library", "-p"}, flag: []string{"-f", "-c", "-C", "-d", "-i", "-r", "-S", "-t", "-tt", "-ttt", "-T", "-w"}, noExec: []string{"-V", "--version", "-h", "--help"}},
		"pkexec":           {kind: runsArgv, value: []string{"--user"}, flag: []string{"--disable-internal-agent", "--keep-cwd"}, noExec: []string{"--version", "--help"}},
		"nsenter":          {kind: runsArgv, value: []string{"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-R", "--root", "-W", "--wd"}, flag: []string{"-a", "--all", "-m", "--mount", "-u", "--uts", "-i", "--ipc", "-n", "--net", "-p", "--pid", "-U", "--user", "-C", "--cgroup", "-T", "--time", "-r", "-w", "-F", "--no-fork", "--preserve-credentials"}},
		"systemd-run":      {kind: runsArgv, value: []string{"-u", "--unit", "-p", "--property", "-E", "--setenv", "-M", "--machine", "--description", "--slice", "--working-directory"}, flag: []string{"--user", "--system", "--scope", "-P", "--pipe", "-q", "--quiet", "--wait", "-G", "--collect", "-t", "--pty", "-d", "--same-dir", "--no-block"}},
		"fakeroot":         {kind: runsArgv, value: []string{"-l", "--lib", "--faked", "-s", "-i", "-b"}, flag: []string{"-u", "--unknown-is-real"}},
		"firejail":         {kind: runsArgv},
		"valgrind":         {kind: runsArgv},
		"unbuffer":         {kind: runsArgv, flag: []string{"-p"}},
		"numactl":          {kind: runsArgv},
		"prlimit":          {kind: runsArgv, noExec: []string{"-p", "--pid"}},
		"xvfb-run":         {kind: runsArgv, value: []string{"-n", "--server-num", "-e", "--error-file", "-f", "--auth-file", "-p", "--xauth-protocol", "-s", "--server-args", "-w", "--wait"}, flag: []string{"-a", "--auto-servernum", "-l", "--listen-tcp"}},
		"torsocks":         {kind: runsArgv, flag: []string{"-i", "--isolate", "-q", "--quiet", "-d", "--debug"}, value: []string{"-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port"}},
		"proxychains":      {kind: runsArgv, flag: []string{"-q"}, value: []string{"-f"}},
		"proxychains4":     {kind: runsArgv, flag: []string{"-q"}, value: []string{"-f"}},
		"dbus-run-session": {kind: runsArgv},
		// toybox is a multi-call binary as busybox is; run0 is systemd's sudo;
		// runuser -u USER runs a command as su -c runs a script.
		"toybox": {kind: runsArgv, noExec: []string{"--help", "--version", "--long"}},
		"run0": {kind: runsArgv, value: []string{"-u", "--user", "-g", "--group", "-D", "--chdir", "--setenv", "--nice", "--unit", "--property", "--description", "--slice", "--machine", "--background"},
			flag: []string{"--no-ask-password", "--slice-inherit"}},
		"runuser": {kind: runsArgv, value: []string{"-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"},
			flag:   []string{"-", "-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f", "--fast"},
			script: []string{"-c", "--command", "--session-command"}},
		"catchsegv": {kind: runsArgv},
		// parallel runs its command words, joined, through a shell.
		"parallel": {kind: runsJoined, inputCommands: true, inputArgs: true, value: []string{"-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file"}, flag: []string{"-k", "--keep-order", "-q", "--quote"}},
		// script -c runs a command; without it, an interactive shell.
		"script": {kind: runsNone, permute: true, value: []string{"-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing", "-E", "--echo", "-m", "--logging-format"},
			flag: []string{"-a", "--append", "-e", "--return", "-f", "--flush", "-q", "--quiet"}, script: []string{"-c", "--command"}},
		"eval": {kind: runsJoined},
		"trap": {kind: runsTrap, noExec: []string{"-l", "-p", "-P"}},
		"jobs": {kind: runsJobs},
		"find": {kind: runsFindExec},
		// Added in the sixth red-team round, as they are in wrappers.
		"bwrap":        {kind: runsArgv},
		"caffeinate":   {kind: runsArgv, value: []string{"-t", "-w"}, flag: []string{"-d", "-i", "-m", "-s", "-u"}},
		"ccache":       {kind: runsArgv, noExec: []string{"-s", "--show-stats", "-z", "--zero-stats", "-C", "--clear", "-c", "--cleanup", "-M", "--max-size", "-F", "--max-files", "-p", "--show-config", "-k", "--get-config", "-o", "--set-config", "-x", "--show-compression", "-X", "--recompress", "--evict-older-than", "--print-stats", "--show-log-stats", "-V", "--version", "-h", "--help"}},
		"chronic":      {kind: runsArgv, flag: []string{"-e", "-v"}},
		"cpulimit":     {kind: runsArgv, value: []string{"-l", "--limit"}, flag: []string{"-z", "--lazy", "-i", "--include-children", "-v", "--verbose", "-k", "--kill", "-r", "--restore"}, noExec: []string{"-p", "--pid", "-e", "--exe", "-P", "--path", "-h", "--help"}},
		"dumb-init":    {kind: runsArgv, value: []string{"-r", "--rewrite"}, flag: []string{"-c", "--single-child", "-v", "--verbose"}, noExec: []string{"-V", "--version", "-h", "--help"}},
		"eatmydata":    {kind: runsArgv},
		"entr":         {kind: runsArgv, flag: []string{"-a", "-c", "-d", "-n", "-p", "-r", "-z"}, shellMode: []string{"-s"}},
		"faketime":     {kind: runsArgv, operands: 1, value: []string{"-p", "--date-prog"}, flag: []string{"-m", "-f", "--exclude-monotonic", "--disable-shm"}},
		"gosu":         {kind: runsArgv, operands: 1},
		"ifne":         {kind: runsArgv, flag: []string{"-n"}},
		"lckdo":        {kind: runsArgv, operands: 1, value: []string{"-W"}, flag: []string{"-q", "-w"}},
		"nocache":      {kind: runsArgv, value: []string{"-n"}},
		"sandbox-exec": {kind: runsArgv, value: []string{"-f", "-p", "-n", "-D"}},
		"setpriv":      {kind: runsArgv, value: []string{"--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid", "--rgid", "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"}, flag: []string{"--nnp", "--no-new-privs", "--clear-groups", "--keep-groups", "--init-groups", "--reset-env"}, noExec: []string{"-d", "--dump", "-h", "--help", "-V", "--version"}},
		"setuidgid":    {kind: runsArgv, operands: 1},
		"sg":           {kind: runsJoined, operands: 1, flag: []string{"-"}, script: []string{"-c"}},
		"ssh-agent":    {kind: runsArgv, value: []string{"-a", "-E", "-O", "-P", "-t"}, flag: []string{"-c", "-s", "-D", "-d"}, noExec: []string{"-k"}},
		"sshpass":      {kind: runsArgv, value: []string{"-p", "-f", "-d", "-P"}, flag: []string{"-e", "-v"}, noExec: []string{"-h", "-V"}},
		"su-exec":      {kind: runsArgv, operands: 1},
		"tini":         {kind: runsArgv, value: []string{"-p", "-e"}, flag: []string{"-s", "-v", "-vv", "-vvv", "-g", "-w", "-l"}, noExec: []string{"--version", "-h"}},
		"with-lock-ex": {kind: runsArgv, operands: 1, flag: []string{"-w", "-q", "-f"}},
		// Added in the seventh red-team round, as they are in wrappers.
		"hyperfine": {kind: runsEach, permute: true,
			value: []string{"-w", "--warmup", "-m", "--min-runs", "-M", "--max-runs", "-r", "--runs", "-P", "--parameter-scan", "-D", "--parameter-step-size", "-L", "--parameter-list",
				"--style", "-u", "--time-unit", "--export-asciidoc", "--export-csv", "--export-json", "--export-markdown", "--export-orgmode", "--output", "--input", "-n", "--command-name", "--sort", "--reference-name"},
			flag:   []string{"-N", "-i", "--ignore-failure", "--show-output"},
			script: []string{"-s", "--setup", "-p", "--prepare", "-C", "--conclude", "-c", "--cleanup", "--reference", "-S", "--shell"},
			noExec: []string{"-h", "--help", "-V", "--version"}},
		"perf": {kind: runsArgv, operands: 1,
			value: []string{"-e", "--event", "-o", "--output", "-F", "--freq", "-c", "--count", "-C", "--cpu", "-G", "--cgroup", "-I", "--interval-print", "-r", "--repeat", "-x", "--field-separator",
				"-m", "--mmap-pages", "--call-graph", "-t", "--tid", "-p", "--pid", "-u", "--uid", "-D", "--delay", "--debug", "--exec-path", "--buildid-dir", "--pre", "--post", "--filter", "--duration"},
			flag: []string{"-a", "--all-cpus", "-g", "-v", "--verbose", "-q", "--quiet", "-n", "--null", "-d", "--detailed", "-s", "--no-inherit", "-i", "-A", "--no-aggr", "--no-buffering", "-B", "--big-num", "-R", "--raw-samples", "-T", "--timestamp", "-P", "--per-thread", "--no-pager", "--paginate"},
			// -p attaches to a process, but a command after it still runs
			// (perf record -p PID -- sleep 5 records for as long).
			noExec: []string{"-h", "--help", "--version"}},
		"screen": {kind: runsArgv, startsShellAlone: true,
			value:  []string{"-S", "-e", "-h", "-p", "-T", "-t"},
			flag:   []string{"-a", "-A", "-d", "-D", "-m", "-L", "-l", "-ln", "-q", "-U", "-O", "-i", "-f", "-fn", "-fa", "-R", "-RR"},
			script: []string{"-s"},
			noExec: []string{"-r", "-x", "-ls", "-list", "-wipe", "-v", "-version", "-help", "-Q"}},
		"fd":     {kind: runsFdExec},
		"fdfind": {kind: runsFdExec},
		"su": {kind: runsNone, permute: true, shellArgs: true, value: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"},
			flag:   []string{"-", "-l", "--login", "-m", "-p", "--preserve-environment", "-f", "--fast", "-P", "--pty"},
			script: []string{"-c", "--command", "--session-command"}},
		// Added in the thirteenth red-team round, as they are in wrappers.
		"aprun": *aprunLauncher,
		"capsh": {kind: runsArgv, shellAfter: []string{"--", "-+"}, againAfter: []string{"==", "=+"},
			optValue: []string{"--addamb", "--cap-uid", "--caps", "--chroot", "--decode", "--delamb", "--drop", "--explain", "--forkfor", "--gid", "--groups",
				"--has-a", "--has-b", "--has-i", "--has-p", "--iab", "--inh", "--inmode", "--is-uid", "--is-gid", "--keep", "--killit", "--mode", "--secbits",
				"--suggest", "--supports", "--uid", "--user"},
			flag:   []string{"--current", "--has-ambient", "--has-no-new-privs", "--modes", "--no-new-privs", "--noamb", "--noenv", "--print", "--quiet", "--strict"},
			noExec: []string{"-h", "--help", "--license"}},
		"cgexec":    {kind: runsArgv, value: []string{"-g"}, flag: []string{"--sticky"}, noExec: []string{"-h", "--help"}},
		"chpst":     {kind: runsArgv, value: []string{"-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"}, flag: []string{"-v", "-P", "-0", "-1", "-2"}},
		"distcc":    {kind: runsArgv, noExec: []string{"--help", "--version", "--show-hosts", "-j", "--show-principal", "--scan-avail"}},
		"envdir":    {kind: runsArgv, operands: 1},
		"envuidgid": {kind: runsArgv, operands: 1},
		"fghack":    {kind: runsArgv},
		"flatpak-spawn": {kind: runsArgv,
			value: []string{"--forward-fd", "--env", "--unset-env", "--directory", "--app-path", "--usr-path", "--sandbox-expose", "--sandbox-expose-ro",
				"--sandbox-expose-path", "--sandbox-expose-path-ro", "--sandbox-flag"},
			flag:   []string{"--host", "--clear-env", "--watch-bus", "--expose-pids", "--share-pids", "--latest-version", "--no-network", "--sandbox", "-v", "--verbose"},
			noExec: []string{"-h", "--help"}},
		"i386":    *archWrapper,
		"icecc":   {kind: runsArgv, noExec: []string{"--help", "--version", "--build-native"}},
		"linux32": *archWrapper,
		"linux64": *archWrapper,
		"lxc-attach": {kind: runsArgv, startsShellAlone: true,
			value: []string{"-n", "--name", "-a", "--arch", "-s", "--namespaces", "-L", "--pty-log", "-v", "--set-var", "--keep-var", "-f", "--rcfile",
				"-u", "--uid", "-g", "--gid", "-c", "--context", "-o", "--logfile", "-l", "--logpriority", "-P", "--lxcpath"},
			optValue: []string{"--elevated-privileges"},
			flag:     []string{"-e", "--elevated-privileges", "-R", "--remount-sys-proc", "--clear-env", "--keep-env", "-q", "--quiet"},
			noExec:   []string{"-?", "--help", "--usage", "--version"}},
		"mpiexec":         *mpiLauncher,
		"mpiexec.hydra":   *mpiLauncher,
		"mpiexec.mpich":   *mpiLauncher,
		"mpiexec.openmpi": *mpiLauncher,
		"mpirun":          *mpiLauncher,
		"mpirun.mpich":    *mpiLauncher,
		"mpirun.openmpi":  *mpiLauncher,
		"newgrp":          {kind: runsNone, flag: []string{"-", "-l"}},
		"orterun":         *mpiLauncher,
		"pgrphack":        {kind: runsArgv},
		"proot": {kind: runsArgv, startsShellAlone: true,
			value: []string{"-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-w", "--pwd", "--cwd", "-v", "--verbose", "-k", "--kernel-release", "-i",
				"--change-id", "-R", "-S"},
			flag:   []string{"-0", "--root-id"},
			script: []string{"-q", "--qemu"},
			noExec: []string{"-V", "--version", "--about", "-h", "--help", "--usage"}},
		"prun":           *mpiLauncher,
		"runcon":         {kind: runsArgv, operands: 1, noExec: []string{"--help", "--version"}},
		"s6-applyuidgid": {kind: runsArgv, value: []string{"-u", "-g", "-G"}, flag: []string{"-U", "-z"}},
		"s6-envdir":      {kind: runsArgv, operands: 1, value: []string{"-c"}, flag: []string{"-I", "-i", "-n", "-f", "-L"}},
		"s6-envuidgid":   {kind: runsArgv, operands: 1, value: []string{"-D"}, flag: []string{"-u", "-g", "-B", "-n", "-i"}},
		"s6-fghack":      {kind: runsArgv},
		"s6-setlock":     {kind: runsArgv, operands: 1, value: []string{"-t", "-d"}, flag: []string{"-n", "-N", "-r", "-w"}},
		"s6-setsid":      {kind: runsArgv, value: []string{"-d"}, flag: []string{"-s", "-b", "-f", "-g", "-i", "-I", "-q"}},
		"s6-setuidgid":   {kind: runsArgv, operands: 1},
		"s6-softlimit":   {kind: runsArgv, value: softlimitValue},
		"salloc":         *sallocLauncher,
		"sbatch":         *sbatchLauncher,
		"sccache": {kind: runsArgv, noExec: []string{"-s", "--show-stats", "--show-adv-stats", "-z", "--zero-stats", "--start-server", "--stop-server",
			"--dist-auth", "--dist-status", "--package-toolchain", "-h", "--help", "-V", "--version"}},
		"schroot": {kind: runsArgv, startsShellAlone: true,
			value:  []string{"-c", "--chroot", "-u", "--user", "-d", "--directory", "-n", "--session-name", "-o", "--option"},
			flag:   []string{"-a", "--all", "-p", "--preserve-environment", "-q", "--quiet", "-v", "--verbose", "--automatic-session", "--force", "-r", "--run-session"},
			noExec: []string{"-h", "--help", "-V", "--version", "-l", "--list", "-i", "--info", "--config", "--location", "-b", "--begin-session", "-e", "--end-session", "--recover-session"}},
		"setarch":         {kind: runsArgv, leadOperand: true, startsShellAlone: true, flag: setarchFlags, noExec: setarchNoExec},
		"setlock":         {kind: runsArgv, operands: 1, flag: []string{"-n", "-N", "-x", "-X"}},
		"softlimit":       {kind: runsArgv, value: softlimitValue},
		"srun":            *srunLauncher,
		"systemd-cat":     {kind: runsArgv, value: []string{"-t", "--identifier", "-p", "--priority", "--stderr-priority", "--level-prefix", "--namespace"}, noExec: []string{"-h", "--help", "--version"}},
		"systemd-inhibit": {kind: runsArgv, value: []string{"--what", "--who", "--why", "--mode"}, flag: []string{"--no-pager", "--no-legend", "--no-ask-password"}, noExec: []string{"-h", "--help", "--version", "--list"}},
		"systemd-nspawn": {kind: runsArgv, startsShellAlone: true,
			value: []string{"-D", "--directory", "--template", "-i", "--image", "--oci-bundle", "-M", "--machine", "-u", "--user", "--chdir", "-E", "--setenv",
				"--bind", "--bind-ro", "--tmpfs", "--overlay", "--overlay-ro", "--inaccessible", "-S", "--slice", "--property", "--uuid", "--capability",
				"--drop-capability", "--network-interface", "--network-macvlan", "--network-ipvlan", "--network-bridge", "--network-zone", "-p", "--port",
				"--link-journal", "--resolv-conf", "--timezone", "--console", "--register", "--personality", "-Z", "--selinux-context", "-L",
				"--selinux-apifs-context", "--kill-signal", "--hostname", "--rlimit", "--settings"},
			optValue: []string{"--volatile", "--private-users", "--no-new-privileges"},
			flag:     []string{"-x", "--ephemeral", "-q", "--quiet", "-a", "--as-pid2", "-b", "--boot", "-n", "--network-veth", "--private-network", "-U", "--keep-unit", "--read-only", "-P", "--pipe"},
			noExec:   []string{"-h", "--help", "--version"}},
		"x86_64": *archWrapper,
	}
}

func oldWrapperIndex() map[string]*wrapper {
	ws := oldWrappers()
	m := make(map[string]*wrapper, len(ws)+len(shells))
	for name, w := range ws {
		m[name] = &w
	}
	for _, name := range shells {
		m[name] = &shellWrapper
	}
	return m
}

func oldDangerTables() (map[string][]int, []int) {
	exact := map[string][]int{}
	var patterns []int
	for i, e := range dangerFloor {
		for _, p := range e.programs {
			if strings.HasSuffix(p, "*") {
				if !slices.Contains(patterns, i) {
					patterns = append(patterns, i)
				}
			} else if l := exact[p]; len(l) == 0 || l[len(l)-1] != i {
				exact[p] = append(l, i)
			}
		}
	}
	return exact, patterns
}

func oldDangerIndex() map[string][]int { m, _ := oldDangerTables(); return m }

func oldKnownSafeList() map[string][]safeEntry {
	return map[string][]safeEntry{
		"cat": {{maxOperands: -1}}, "ls": {{maxOperands: -1}}, "head": {{maxOperands: -1}}, "tail": {{maxOperands: -1}},
		"wc": {{maxOperands: -1}}, "grep": {{maxOperands: -1}}, "cut": {{maxOperands: -1}}, "tr": {{maxOperands: -1}},
		"echo": {{maxOperands: -1}}, "printf": {{maxOperands: -1}}, "pwd": {{maxOperands: -1}}, "which": {{maxOperands: -1}},
		"stat": {{maxOperands: -1}}, "du": {{maxOperands: -1}}, "df": {{maxOperands: -1}}, "diff": {{maxOperands: -1}},
		"cmp": {{maxOperands: -1}}, "basename": {{maxOperands: -1}}, "dirname": {{maxOperands: -1}},
		"realpath": {{maxOperands: -1}}, "readlink": {{maxOperands: -1}}, "true": {{maxOperands: -1}},
		"false": {{maxOperands: -1}}, "id": {{maxOperands: -1}}, "whoami": {{maxOperands: -1}}, "uname": {{maxOperands: -1}},
		"nl": {{maxOperands: -1}}, "od": {{maxOperands: -1}}, "sha256sum": {{maxOperands: -1}}, "md5sum": {{maxOperands: -1}},
		"uniq": {{maxOperands: 1}},
		"file": {{denyShort: "C", denyLong: []string{"--compile"}, maxOperands: -1}},
		"date": {{denyShort: "s", denyLong: []string{"--set"}, maxOperands: -1}},
		"sort": {{denyShort: "o", denyLong: []string{"--output", "--compress-program"}, maxOperands: -1}},
		"rg":   {{denyShort: "z", denyLong: []string{"--pre", "--pre-glob", "--search-zip", "--hostname-bin"}, maxOperands: -1}},
		"find": {{denyLong: []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}, maxOperands: -1}},
		// sed -l takes a value, which sedReadOnly would take for the script.
		"sed": {{denyShort: "ifsl", denyLong: []string{"--in-place", "--file", "--separate", "--line-length"}, maxOperands: -1, check: sedReadOnly}},
		"git": {
			{sub: "status", maxOperands: -1},
			{sub: "log", denyLong: []string{"--output", "--ext-diff"}, maxOperands: -1},
			{sub: "diff", denyLong: []string{"--output", "--ext-diff"}, maxOperands: -1},
			{sub: "show", denyLong: []string{"--output", "--ext-diff"}, maxOperands: -1},
			{sub: "branch", maxOperands: 0, check: gitBranchListing},
		},
	}
}

func oldShellBuiltins() map[string]builtinCheck {
	return map[string]builtinCheck{
		"printf":    printfArgs,
		"read":      readArgs,
		"mapfile":   mapfileArgs,
		"readarray": mapfileArgs,
		"getopts":   getoptsArgs,
		"wait":      waitArgs,
		"unset":     unsetArgs,
		"test":      testNames,
		"[":         testNames,
		"fc":        fcArgs,
		"set":       setArgs,
		"shopt":     shoptArgs,
		"source":    sourceFile,
		".":         sourceFile,
		"compgen":   compgenArgs,
		"hash":      hashArgs,
		"enable":    enableArgs,
		"alias":     aliasArgs,
		"declare":   declarationArgs,
		"export":    declarationArgs,
		"local":     declarationArgs,
		"readonly":  declarationArgs,
		"typeset":   declarationArgs,
	}
}

// oldDockerGroups is dockerGroups as a map.
func oldDockerGroups() map[string]*oldExecOptions {
	return map[string]*oldExecOptions{
		"compose": {global: true, runners: oldRunners(composeRunners),
			skip: []string{"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory", "--ansi", "--progress", "--parallel"}},
		"container": {global: true, runners: oldRunners(dockerRunners)},
	}
}

// oldNpmConfig is npmConfigCommands as a map.
func oldNpmConfig() map[string]*oldExecOptions {
	return map[string]*oldExecOptions{"c": {script: npmConfigArgs}, "config": {script: npmConfigArgs}, "set": {script: npmConfigArgs}}
}

// oldRunners is a runner table as a map.
func oldRunners(t nameTable[*wrapper]) map[string]*wrapper {
	m := map[string]*wrapper{}
	for _, r := range t {
		m[r.name] = r.val
	}
	return m
}

func oldProgramExecOptions() map[string]*oldExecOptions {
	return map[string]*oldExecOptions{
		"tar": {short: "IF", oldStyle: true,
			long:        []string{"--use-compress-program", "--to-command", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command"},
			valuePrefix: map[string]string{"--checkpoint-action": "exec="}},
		"sort":  {long: []string{"--compress-program"}},
		"rsync": {short: "e", long: []string{"--rsh", "--rsync-path"}}, // --rsync-path: the eleventh round
		// Added since, as they are in programExecOptions.
		"diff3":  {long: []string{"--diff-program"}},
		"rg":     {long: []string{"--pre", "--hostname-bin"}},
		"sdiff":  {long: []string{"--diff-program"}},
		"sed":    {script: sedArgs},
		"split":  {long: []string{"--filter"}},
		"make":   {script: makeArgs},
		"gmake":  {script: makeArgs},
		"awk":    {script: awkArgs},
		"gawk":   {script: awkArgs},
		"mawk":   {script: awkArgs},
		"nawk":   {script: awkArgs},
		"man":    {script: manArgs},
		"less":   {script: lessArgs},
		"strace": {script: straceArgs},
		// Added in the seventh red-team round.
		"ssh":       {script: sshArgs},
		"scp":       {script: scpArgs},
		"sftp":      {script: sftpArgs},
		"gdb":       {script: gdbArgs},
		"ex":        {script: vimArgs},
		"gvim":      {script: vimArgs},
		"nvim":      {script: vimArgs},
		"rvim":      {script: vimArgs},
		"vi":        {script: vimArgs},
		"view":      {script: vimArgs},
		"vim":       {script: vimArgs},
		"vimdiff":   {script: vimArgs},
		"nix-shell": {long: []string{"--run", "--command"}},
		"zip":       {short: "T", long: []string{"--unzip-command"}},
		// Added in the eighth.
		"dc":          {script: dcArgs},
		"ed":          {script: edArgs},
		"emacs":       {script: emacsArgs},
		"emacsclient": {script: emacsclientArgs},
		"nodemon":     {short: "x", long: []string{"--exec"}},
		"tox":         {global: true, skip: []string{"-c", "--conf", "--root", "--workdir"}, runners: oldRunners(toxRunners)},
		"psql":        {script: psqlArgs},
		"sqlite3":     {script: sqliteArgs},
		"tmux":        {script: tmuxArgs},
		// Added in the tenth: the vi family under its other names, mysql.
		"mariadb":    {script: mysqlArgs},
		"gnuplot":    {script: gnuplotArgs},
		"mysql":      {script: mysqlArgs},
		"editor":     {script: vimArgs},
		"eview":      {script: vimArgs},
		"evim":       {script: vimArgs},
		"gview":      {script: vimArgs},
		"gvimdiff":   {script: vimArgs},
		"nex":        {script: vimArgs},
		"nvi":        {script: vimArgs},
		"nview":      {script: vimArgs},
		"rgview":     {script: vimArgs},
		"rgvim":      {script: vimArgs},
		"rview":      {script: vimArgs},
		"vim.athena": {script: vimArgs},
		"vim.basic":  {script: vimArgs},
		"vim.gtk":    {script: vimArgs},
		"vim.gtk3":   {script: vimArgs},
		"vim.motif":  {script: vimArgs},
		"vim.nox":    {script: vimArgs},
		"vim.tiny":   {script: vimArgs},
		"vimx":       {script: vimArgs},
		// Added in the eleventh: the C toolchain, rustc, package managers,
		// file tools, cmake, pytest, openssl, gpg.
		"gcc": {script: ccArgs}, "g++": {script: ccArgs}, "cc": {script: ccArgs}, "c++": {script: ccArgs},
		"c89": {script: ccArgs}, "c99": {script: ccArgs}, "cpp": {script: ccArgs}, "cc1": {script: ccArgs},
		"cc1plus": {script: ccArgs}, "clang": {script: ccArgs}, "clang++": {script: ccArgs}, "clang-cpp": {script: ccArgs},
		"gfortran": {script: ccArgs}, "gccgo": {script: ccArgs},
		"collect2": {script: ldArgs}, "ld": {script: ldArgs}, "ld.bfd": {script: ldArgs}, "ld.gold": {script: ldArgs},
		"ld.lld": {script: ldArgs}, "ld.mold": {script: ldArgs}, "gold": {script: ldArgs}, "mold": {script: ldArgs},
		"ar": {script: ldArgs}, "nm": {script: ldArgs}, "ranlib": {script: ldArgs},
		"gcc-ar": {script: ldArgs}, "gcc-nm": {script: ldArgs}, "gcc-ranlib": {script: ldArgs},
		"rustc":    {script: rustcArgs},
		"apt":      {script: aptArgs},
		"apt-get":  {script: aptArgs},
		"dpkg":     {script: dpkgArgs},
		"rpm":      {short: "DE", long: rpmRuns},
		"rpmbuild": {short: "DE", long: rpmRuns},
		"rpmspec":  {short: "DE", long: rpmRuns},
		"gs":       {script: gsArgs}, "gsc": {script: gsArgs}, "gsx": {script: gsArgs}, "ps2pdf": {script: gsArgs},
		"ps2pdfwr": {script: gsArgs}, "ps2ps": {script: gsArgs}, "pdf2ps": {script: gsArgs}, "eps2eps": {script: gsArgs},
		"convert": {script: imageMagickArgs}, "magick": {script: imageMagickArgs}, "mogrify": {script: imageMagickArgs},
		"montage": {script: imageMagickArgs}, "composite": {script: imageMagickArgs}, "identify": {script: imageMagickArgs},
		"wget":   {script: wgetArgs},
		"cpio":   {long: []string{"--rsh-command"}},
		"cmake":  {script: cmakeArgs},
		"nano":   {short: "sf", long: []string{"--speller", "--rcfile"}},
		"svn":    {script: svnArgs},
		"hg":     {long: []string{"--config"}, configValue: true},
		"chg":    {long: []string{"--config"}, configValue: true},
		"pytest": {script: pytestArgs}, "pytest-3": {script: pytestArgs}, "py.test": {script: pytestArgs},
		"openssl": {script: opensslArgs},
		"gpg":     {long: gpgRuns},
		"gpg2":    {long: gpgRuns},
		// Runners (runners.go).
		"bundle": {global: true, skip: []string{"--gemfile"}, runners: oldRunners(bundleRunners)},
		"go":     {script: goArgs},
		"cargo":  {script: cargoArgs},
		"bunx":   {runs: lookupProgram("bunx").exec.runs},
		"conda":  {global: true, runners: oldRunners(condaRunners)},
		"direnv": {global: true, runners: oldRunners(direnvRunners)},
		"bun":    {global: true, runners: oldRunners(bunRunners)},
		"docker": {global: true, skip: dockerGlobalValue, runners: oldRunners(dockerRunners), sub: oldDockerGroups()},
		"hatch": {global: true, skip: []string{"-e", "--env", "-p", "--project"}, runners: oldRunners(hatchRunners), envPrefix: true,
			sub: map[string]*oldExecOptions{"env": {global: true, runners: oldRunners(hatchEnvRunners)}}},
		"kubectl":    {global: true, skip: kubectlGlobalValue, runners: oldRunners(kubectlRuns)},
		"mamba":      {global: true, runners: oldRunners(condaRunners)},
		"micromamba": {global: true, runners: oldRunners(condaRunners)},
		"npm":        {global: true, skip: []string{"--prefix", "-w", "--workspace"}, runners: oldRunners(npmRunners), anywhere: npmRunsConfig, sub: oldNpmConfig()},
		"npx":        {runs: npmExec},
		"pdm":        {global: true, skip: []string{"-p", "--project"}, runners: oldRunners(pythonRun)},
		"pipenv":     {global: true, skip: []string{"--python"}, runners: oldRunners(pythonRun)},
		"pixi":       {global: true, skip: []string{"--manifest-path", "--color"}, runners: oldRunners(pixiRunners)},
		"pnpm": {global: true, skip: []string{"-C", "--dir", "-F", "--filter"}, runners: oldRunners(pnpmRunners), anywhere: npmRunsConfig,
			sub: oldNpmConfig(), commands: pnpmCommands, implicit: anyCommand},
		"pnpx":   {runs: npmExec},
		"podman": {global: true, skip: dockerGlobalValue, runners: oldRunners(dockerRunners), sub: oldDockerGroups()},
		"poetry": {global: true, skip: []string{"-C", "--directory", "-P", "--project"}, runners: oldRunners(pythonRun)},
		"rye":    {global: true, runners: oldRunners(pythonRun)},
		"uv": {global: true, skip: uvGlobalValue, runners: oldRunners(uvRunners),
			sub: map[string]*oldExecOptions{"tool": {global: true, runners: oldRunners(uvRunners)}}},
		"uvx":  {runs: uvRun},
		"yarn": {global: true, skip: []string{"--cwd"}, runners: oldRunners(yarnRunners)},
		// Many git settings are commands git runs (alias.*, core.pager,
		// core.sshCommand, core.fsmonitor, diff.external, ...); --exec-path
		// picks the directory of the programs its subcommands run.
		"git": {short: "c", long: []string{"--config-env", "--exec-path"}, global: true, configValue: true,
			skip: gitGlobalValue, sub: oldGitSubcommandExecOptions()},
		// Added in the thirteenth red-team round.
		"apptainer":       {global: true, runners: oldRunners(singularityRunners)},
		"asdf":            {global: true, runners: oldRunners(asdfRunners)},
		"colorgcc":        {script: ccArgs},
		"crictl":          {global: true, skip: []string{"-c", "--config", "-i", "--image-endpoint", "-r", "--runtime-endpoint", "-t", "--timeout"}, runners: oldRunners(crictlRunners)},
		"ctr":             {global: true, skip: []string{"-a", "--address", "-n", "--namespace", "--timeout", "--connect-timeout"}, runners: oldRunners(ctrRunners), sub: oldCtrGroups()},
		"devbox":          {global: true, runners: oldRunners(devboxRunners)},
		"distrobox":       {global: true, runners: oldRunners(distroboxRunners)},
		"distrobox-enter": {runs: distroboxEnter},
		"fnm":             {global: true, skip: []string{"--log-level", "--node-dist-mirror", "--fnm-dir", "--arch", "--version-file-strategy"}, runners: oldRunners(fnmRunners)},
		"goenv":           {global: true, runners: oldRunners(envExec)},
		"guix":            {global: true, runners: oldRunners(guixRunners)},
		"jenv":            {global: true, runners: oldRunners(envExec)},
		"mise":            {global: true, skip: []string{"-C", "--cd", "-E", "--env", "-j", "--jobs"}, runners: oldRunners(miseRunners)},
		"nerdctl":         {global: true, skip: nerdctlGlobalValue, runners: oldRunners(dockerRunners), sub: oldDockerGroups()},
		"nix":             {global: true, skip: []string{"--extra-experimental-features", "--experimental-features", "--store", "--log-format"}, runners: oldRunners(nixRunners)},
		"nodenv":          {global: true, runners: oldRunners(envExec)},
		"nvm":             {global: true, runners: oldRunners(nvmRunners)},
		"pyenv":           {global: true, runners: oldRunners(envExec)},
		"rbenv":           {global: true, runners: oldRunners(envExec)},
		"rtx":             {global: true, skip: []string{"-C", "--cd", "-E", "--env", "-j", "--jobs"}, runners: oldRunners(miseRunners)},
		"rvm":             {runsAfter: "do"},
		"scl":             {global: true, runners: oldRunners(sclRunners)},
		"singularity":     {global: true, runners: oldRunners(singularityRunners)},
		"snap":            {global: true, runners: oldRunners(snapRunners)},
		"toolbox":         {global: true, skip: []string{"--log-level"}, runners: oldRunners(toolboxRunners)},
		"volta":           {global: true, runners: oldRunners(voltaRunners)},
		// Added in the fourteenth.
		"ftp":   {script: ftpArgs},
		"lftp":  {script: lftpArgs},
		"pftp":  {script: ftpArgs},
		"tnftp": {script: ftpArgs},
	}
}

// oldCtrGroups is ctrGroups as a map.
func oldCtrGroups() map[string]*oldExecOptions {
	c := &oldExecOptions{global: true, runners: oldRunners(ctrContainerRunners)}
	t := &oldExecOptions{global: true, runners: oldRunners(ctrTaskRunners)}
	return map[string]*oldExecOptions{"c": c, "container": c, "containers": c, "t": t, "task": t, "tasks": t}
}

func oldGitSubcommandExecOptions() map[string]*oldExecOptions {
	return map[string]*oldExecOptions{
		"rebase":    {short: "x", long: []string{"--exec"}},
		"difftool":  {short: "x", long: []string{"--extcmd", "--tool"}},
		"mergetool": {long: []string{"--tool"}},
		"grep":      {short: "O", long: []string{"--open-files-in-pager"}},
		"clone":     {short: "u", long: []string{"--upload-pack"}},
		"fetch":     {long: []string{"--upload-pack"}},
		"pull":      {long: []string{"--upload-pack"}},
		"ls-remote": {long: []string{"--upload-pack"}},
		"archive":   {long: []string{"--exec"}},
		"push":      {long: []string{"--receive-pack", "--exec"}},
		"bisect":    {runsAfter: "run"},
		"submodule": {runsAfter: "foreach"},
	}
}

func oldSubcommandDepth() map[string]oldSubcommands {
	return map[string]oldSubcommands{
		"git": {nested: []string{"submodule", "bisect", "stash", "remote", "worktree"}}, "npm": {nested: []string{"run", "run-script"}},
		"pnpm": {nested: []string{"run"}}, "yarn": {nested: []string{"run"}}, "cargo": {}, "go": {nested: []string{"mod", "tool"}},
		"docker": {nested: []string{"compose", "image", "container"}}, "podman": {}, "kubectl": {}, "pip": {}, "pip3": {}, "uv": {nested: []string{"pip"}},
		"poetry": {}, "make": {}, "gh": {nested: []string{"pr", "issue", "repo"}}, "terraform": {}, "dotnet": {}, "rustup": {}, "apt": {}, "apt-get": {}, "brew": {},
		"systemctl": {}, "helm": {}, "mvn": {}, "gradle": {}, "bundle": {}, "composer": {},
	}
}

func oldProgramTable() map[string]oldProgramFacts {
	m := map[string]oldProgramFacts{}
	for name, w := range oldWrapperIndex() {
		f := m[name]
		f.wrapper = w
		m[name] = f
	}
	for name, l := range oldDangerIndex() {
		f := m[name]
		f.danger = l
		m[name] = f
	}
	for name, l := range oldKnownSafeList() {
		f := m[name]
		f.safe = l
		m[name] = f
	}
	for name, c := range oldShellBuiltins() {
		f := m[name]
		f.builtin = c
		m[name] = f
	}
	for name, e := range oldProgramExecOptions() {
		f := m[name]
		f.exec = e
		m[name] = f
	}
	return m
}
