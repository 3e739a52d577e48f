package execpolicy

// Launchers are wrappers of a kind many programs share: a job launcher
// (mpirun, srun) runs the command after its options on the nodes it is
// given, which may be this host; a personality or limit setter (setarch,
// softlimit) runs it here. Each is judged as its command is, as env's.

// mpiLauncher is mpirun's and mpiexec's options, Open MPI's and MPICH's
// (Hydra's), which take single-dash long options (-np 4, -host h). A ":"
// starts another command after options of its own (MPMD). --mca and
// -genv take two words, --app and -configfile a file of commands,
// --launch-agent and -launcher-exec a program: all unknown, so
// unanalysable.
var mpiLauncher = &wrapper{kind: runsArgv, mpmd: true,
	value: []string{"-n", "-np", "--np", "-c", "-N", "-H", "-host", "--host", "-hosts", "-hostfile", "--hostfile", "-machinefile",
		"--machinefile", "-f", "-x", "-wdir", "--wdir", "-wd", "--wd", "-path", "--path", "-prefix", "--prefix", "-npernode",
		"--npernode", "-ppn", "-map-by", "--map-by", "-rank-by", "--rank-by", "-bind-to", "--bind-to", "-output-filename",
		"--output-filename", "-genvlist", "-envlist", "-iface", "-timeout", "--timeout"},
	flag: []string{"-oversubscribe", "--oversubscribe", "-allow-run-as-root", "--allow-run-as-root", "-report-bindings",
		"--report-bindings", "-tag-output", "--tag-output", "-timestamp-output", "--timestamp-output", "-q", "--quiet", "-v",
		"--verbose", "-l", "-prepend-rank", "-genvall", "-genvnone", "-display-map", "--display-map",
		"-merge-stderr-to-stdout", "--merge-stderr-to-stdout", "-use-hwthread-cpus", "--use-hwthread-cpus"},
	noExec: []string{"-h", "-help", "--help", "-V", "-version", "--version", "-info"}}

// aprunLauncher is Cray ALPS's aprun: -n PES, -N PER-NODE, and ":"
// between the commands of an MPMD job.
var aprunLauncher = &wrapper{kind: runsArgv, mpmd: true,
	value:  []string{"-n", "-N", "-d", "-L", "-cc", "-j", "-m", "-S", "-sn", "-sl", "-e", "-F", "-p", "-r", "-R", "-t", "-a", "-E", "-D"},
	flag:   []string{"-q", "-b", "-B", "-T", "-ss", "-C", "-z"},
	noExec: []string{"--help", "--version"}}

// slurmValue and slurmFlag are the options srun, salloc and sbatch share
// (Slurm 22.05). --prolog, --epilog, --task-prolog and --task-epilog,
// which name programs, and --multi-prog, whose operand is a file of
// commands, are left unknown.
var (
	slurmValue = []string{"-A", "--account", "-b", "--begin", "-c", "--cpus-per-task", "-C", "--constraint", "-d", "--dependency",
		"-D", "--chdir", "-e", "--error", "-G", "--gpus", "-i", "--input", "-J", "--job-name", "-L", "--licenses", "-m",
		"--distribution", "-n", "--ntasks", "-N", "--nodes", "-o", "--output", "-p", "--partition", "-q", "--qos", "-t", "--time",
		"-w", "--nodelist", "-x", "--exclude", "--mem", "--mem-per-cpu", "--mem-per-gpu", "--gres", "--gpus-per-node",
		"--gpus-per-task", "--ntasks-per-node", "--cpu-bind", "--mpi", "--export", "--reservation", "--comment", "--signal",
		"--time-min", "--mail-type", "--mail-user", "--nodefile", "-F"}
	slurmOptValue = []string{"--exclusive", "--nice", "--immediate", "--kill-on-bad-exit", "--no-kill"}
	slurmFlag     = []string{"-v", "--verbose", "-Q", "--quiet", "-O", "--overcommit", "-s", "--oversubscribe", "-H", "--hold",
		"--contiguous", "--spread-job", "--use-min-nodes", "--requeue", "--no-requeue", "-I", "-k", "-K"}
	slurmNoExec = []string{"-h", "--help", "--usage", "-V", "--version", "--test-only"}
)

// srunLauncher is srun: a ":" separates the components of a
// heterogeneous job, each with options of its own.
var srunLauncher = &wrapper{kind: runsArgv, mpmd: true, value: srunValue, optValue: slurmOptValue, flag: srunFlag, noExec: slurmNoExec}

// sallocLauncher is salloc: it runs its command, or the user's shell,
// on this host in the allocation. --no-shell runs none.
var sallocLauncher = &wrapper{kind: runsArgv, startsShellAlone: true, value: slurmValue, optValue: slurmOptValue, flag: sallocFlag, noExec: sallocNoExec}

// sbatchLauncher is sbatch: --wrap's value runs through sh; its operand
// is the batch script, which it reads from stdin when there is none.
var sbatchLauncher = &wrapper{kind: runsArgv, startsShellAlone: true, value: sbatchValue, optValue: slurmOptValue, flag: sbatchFlag, script: []string{"--wrap"}, noExec: slurmNoExec}

// The options each Slurm launcher has beyond those all three share,
// written out (statictables.go; TestWrittenOutLists checks them).
var (
	srunValue = []string{"-A", "--account", "-b", "--begin", "-c", "--cpus-per-task", "-C", "--constraint", "-d",
		"--dependency", "-D", "--chdir", "-e", "--error", "-G", "--gpus", "-i", "--input", "-J", "--job-name", "-L",
		"--licenses", "-m", "--distribution", "-n", "--ntasks", "-N", "--nodes", "-o", "--output", "-p", "--partition", "-q",
		"--qos", "-t", "--time", "-w", "--nodelist", "-x", "--exclude", "--mem", "--mem-per-cpu", "--mem-per-gpu", "--gres",
		"--gpus-per-node", "--gpus-per-task", "--ntasks-per-node", "--cpu-bind", "--mpi", "--export", "--reservation",
		"--comment", "--signal", "--time-min", "--mail-type", "--mail-user", "--nodefile", "-F", "-W", "--wait", "-T",
		"--threads", "-r", "--relative"}
	srunFlag = []string{"-v", "--verbose", "-Q", "--quiet", "-O", "--overcommit", "-s", "--oversubscribe", "-H", "--hold",
		"--contiguous", "--spread-job", "--use-min-nodes", "--requeue", "--no-requeue", "-I", "-k", "-K", "-l", "--label",
		"-u", "--unbuffered", "--pty", "--overlap", "--exact", "-X", "--disable-status"}
	sallocFlag = []string{"-v", "--verbose", "-Q", "--quiet", "-O", "--overcommit", "-s", "--oversubscribe", "-H",
		"--hold", "--contiguous", "--spread-job", "--use-min-nodes", "--requeue", "--no-requeue", "-I", "-k", "-K", "--bell",
		"--no-bell"}
	sallocNoExec = []string{"-h", "--help", "--usage", "-V", "--version", "--test-only", "--no-shell"}
	sbatchValue  = []string{"-A", "--account", "-b", "--begin", "-c", "--cpus-per-task", "-C", "--constraint", "-d",
		"--dependency", "-D", "--chdir", "-e", "--error", "-G", "--gpus", "-i", "--input", "-J", "--job-name", "-L",
		"--licenses", "-m", "--distribution", "-n", "--ntasks", "-N", "--nodes", "-o", "--output", "-p", "--partition", "-q",
		"--qos", "-t", "--time", "-w", "--nodelist", "-x", "--exclude", "--mem", "--mem-per-cpu", "--mem-per-gpu", "--gres",
		"--gpus-per-node", "--gpus-per-task", "--ntasks-per-node", "--cpu-bind", "--mpi", "--export", "--reservation",
		"--comment", "--signal", "--time-min", "--mail-type", "--mail-user", "--nodefile", "-F", "-a", "--array"}
	sbatchFlag = []string{"-v", "--verbose", "-Q", "--quiet", "-O", "--overcommit", "-s", "--oversubscribe", "-H",
		"--hold", "--contiguous", "--spread-job", "--use-min-nodes", "--requeue", "--no-requeue", "-I", "-k", "-K", "-W",
		"--wait", "--parsable"}
)

// setarchFlags are setarch's personality flags (util-linux 2.38);
// archWrapper is setarch under the name of an architecture (linux32,
// x86_64), which takes no ARCH operand. Given no command, both run
// /bin/sh, which reads stdin.
var (
	setarchFlags = []string{"-B", "--32bit", "-F", "--fdpic-funcptrs", "-I", "--short-inode", "-L", "--addr-compat-layout", "-R",
		"--addr-no-randomize", "-S", "--whole-seconds", "-T", "--sticky-timeouts", "-X", "--read-implies-exec", "-Z",
		"--mmap-page-zero", "-3", "--3gb", "--4gb", "--uname-2.6", "-v", "--verbose"}
	setarchNoExec = []string{"--list", "-h", "--help", "-V", "--version"}
	archWrapper   = &wrapper{kind: runsArgv, startsShellAlone: true, flag: setarchFlags, noExec: setarchNoExec}
)

// softlimitValue are daemontools' softlimit options, each a limit.
var softlimitValue = []string{"-a", "-c", "-d", "-f", "-l", "-m", "-o", "-p", "-r", "-s", "-t"}
