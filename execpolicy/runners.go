package execpolicy

import (
	"slices"
	"strings"
)

// Runners run a command given after their options in an environment they
// set up: a project's virtual environment (uv run, poetry run), its
// bundle (bundle exec), its packages' binaries (npx, npm exec), a
// container (docker exec). npx 11 runs "npx --no touch f" with the
// system's touch. A rule that allows the runner speaks for what it runs,
// as a rule for make speaks for its recipes, so a command there no rule
// matches does not ask; but what the rules say of it holds: a forbidden
// or prompt rule, the dangerous floor, a script that cannot be analysed.

// npmExec is npm exec's (and npx's) options before the command: -c
// (--call) is a script it runs in a shell.
var npmExec = &wrapper{kind: runsArgv,
	value:  []string{"-p", "--package", "-w", "--workspace"},
	flag:   []string{"-y", "--yes", "--no", "--workspaces", "--ws", "--include-workspace-root", "-q", "--quiet", "-s", "--silent"},
	script: []string{"-c", "--call"},
	noExec: []string{"-h", "--help"},
}

// pythonEnvRun is "run" of the Python project managers (poetry, pdm,
// pipenv, hatch, rye): the command follows its few options. uv's own is
// uvRun.
var pythonEnvRun = &wrapper{kind: runsArgv,
	value: []string{"-e", "--env", "-p", "--project", "-C", "--directory", "--venv"},
	flag:  []string{"-q", "--quiet", "-v", "--verbose", "-n", "--no-interaction", "--no-sync", "-l", "--list"},
}

// uvRun is uv run's (and uvx's) options. -m, --module and --script run
// Python code, as an allow rule for python would; the arguments are no
// command.
var uvRun = &wrapper{kind: runsArgv,
	value: []string{"--with", "-w", "--with-editable", "--with-requirements", "-p", "--python", "--env-file",
		"--extra", "--group", "--only-group", "--no-group", "--package", "--directory", "--project",
		"--index", "--default-index", "-i", "--index-url", "--extra-index-url", "--from", "--python-preference",
		"--cache-dir", "--config-file", "--color", "--prerelease", "--resolution", "--exclude-newer", "--link-mode"},
	flag: []string{"--no-sync", "--frozen", "--locked", "--isolated", "--no-project", "--all-extras", "--no-dev",
		"--dev", "--all-packages", "--active", "--no-active", "--no-env-file", "-q", "--quiet", "-v", "--verbose",
		"--offline", "--no-cache", "-n", "--refresh", "--exact", "--inexact", "--no-editable", "--all-groups"},
	noExec: []string{"-m", "--module", "-s", "--script", "--gui-script", "-h", "--help"},
}

// dockerExec is docker exec's (and podman's) options before the
// container, which is its one operand before the command.
var dockerExec = &wrapper{kind: runsArgv, operands: 1,
	value: []string{"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"},
	flag:  []string{"-i", "--interactive", "-t", "--tty", "-it", "-ti", "-d", "--detach", "--privileged"},
}

// kubectlPod is the options of kubectl run and kubectl debug, which start
// a pod (or a debugging container) running the command after "--"; the
// pod's name is their one operand.
var kubectlPod = &wrapper{kind: runsArgv, operands: 1,
	value: []string{"--image", "-n", "--namespace", "--env", "--port", "-l", "--labels", "--overrides", "--restart",
		"--image-pull-policy", "--serviceaccount", "--context", "--annotations", "--pod-running-timeout", "-c",
		"--container", "--target", "--profile", "--copy-to", "--set-image", "--dry-run", "-o", "--output"},
	flag: []string{"-i", "--stdin", "-t", "--tty", "-it", "-ti", "--rm", "--command", "-q", "--quiet", "--attach",
		"--privileged", "--share-processes", "--replace", "--same-node", "--keep-init-containers"},
}

// kubectlExec is kubectl exec's options; the pod is the one operand
// before the command (after "--" in current kubectl).
var kubectlExec = &wrapper{kind: runsArgv, operands: 1,
	value: []string{"-c", "--container", "-n", "--namespace", "-f", "--filename", "--context", "--pod-running-timeout"},
	flag:  []string{"-i", "--stdin", "-t", "--tty", "-it", "-ti", "-q", "--quiet"},
}

// npmExplore is npm explore: it runs the words after the package (and
// "--") joined, as a script, in the package's directory, or a shell that
// reads stdin when given none.
var npmExplore = &wrapper{kind: runsJoined, operands: 1, startsShellAlone: true}

// dockerRun is docker run's (and podman's, compose run's) options before
// the image, which is its one operand before the command. --entrypoint,
// the program it runs, is left out: as an unknown option it makes the
// command unanalysable, and every operand is probed (probe).
var dockerRun = &wrapper{kind: runsArgv, operands: 1,
	value: []string{"--add-host", "--cap-add", "--cap-drop", "--cidfile", "--cpus", "--device", "--dns", "-e", "--env",
		"--env-file", "--gpus", "-h", "--hostname", "--ipc", "-l", "--label", "--log-driver", "--log-opt", "-m", "--memory",
		"--mount", "--name", "--net", "--network", "-p", "--pid", "--platform", "--publish", "--pull", "--restart",
		"--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--tmpfs", "-u", "--ulimit", "--user", "-v",
		"--volume", "--volumes-from", "-w", "--workdir"},
	flag: []string{"-d", "--detach", "-i", "--init", "--interactive", "-it", "-P", "--privileged", "--publish-all",
		"-q", "--quiet", "--read-only", "--rm", "-t", "-ti", "--tty", "--no-deps", "--service-ports", "-T", "--no-TTY",
		"--build", "--use-aliases"},
}

// composeExec is docker compose exec's options before the service.
var composeExec = &wrapper{kind: runsArgv, operands: 1,
	value: []string{"-e", "--env", "--index", "-u", "--user", "-w", "--workdir"},
	flag:  []string{"-d", "--detach", "--privileged", "-T", "--no-TTY", "-it", "-i", "-t"},
}

// projectShell is the shell subcommand of the Python project managers
// (poetry shell, pipenv shell, hatch shell): given no command, it starts
// an interactive shell, which reads its commands from stdin.
var projectShell = &wrapper{kind: runsArgv, startsShellAlone: true}

// runnerSubcommands names, for each program with runner subcommands, the
// subcommands and how each reads its options.
var (
	bunRunners     = nameTable[*wrapper]{{"exec", &wrapper{kind: runsJoined}}, {"x", bunxRun}}
	bundleRunners  = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv, flag: []string{"--keep-file-descriptors"}, value: []string{"--gemfile"}}}}
	composeRunners = nameTable[*wrapper]{{"exec", composeExec}, {"run", dockerRun}}
	condaRunners   = nameTable[*wrapper]{{"run", &wrapper{kind: runsArgv,
		value: []string{"-n", "--name", "-p", "--prefix", "--cwd"},
		flag:  []string{"--no-capture-output", "--live-stream", "-v", "--verbose", "--debug-wrapper-scripts"}}}}
	direnvRunners   = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv, operands: 1}}}
	dockerRunners   = nameTable[*wrapper]{{"exec", dockerExec}, {"run", dockerRun}}
	hatchEnvRunners = nameTable[*wrapper]{{"run", &wrapper{kind: runsArgv,
		value: []string{"-e", "--env", "-i", "--include", "-x", "--exclude"},
		flag:  []string{"--ignore-compat"}}}}
	hatchRunners = nameTable[*wrapper]{{"run", pythonEnvRun}, {"shell", projectShell}}
	kubectlRuns  = nameTable[*wrapper]{{"debug", kubectlPod}, {"exec", kubectlExec}, {"run", kubectlPod}}
	npmRunners   = nameTable[*wrapper]{{"exe", npmExec}, {"exec", npmExec}, {"explo", npmExplore}, {"explor", npmExplore}, {"explore", npmExplore}, {"x", npmExec}}
	pixiRunners  = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv,
		value: []string{"-s", "--spec", "-c", "--channel", "-p", "--platform"},
		flag:  []string{"--force-reinstall", "-q", "--quiet", "-v", "--verbose"}}}, {"run", &wrapper{kind: runsArgv,
		value: []string{"-e", "--environment", "--manifest-path"},
		flag:  []string{"--frozen", "--locked", "--clean-env", "-q", "--quiet", "-v", "--verbose"}}}, {"shell", projectShell}}
	pnpmRunners = nameTable[*wrapper]{{"dlx", npmExec}, {"exec", npmExec}}
	pythonRun   = nameTable[*wrapper]{{"run", pythonEnvRun}, {"shell", projectShell}}
	toxRunners  = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv,
		value: []string{"-e", "-f", "--factor", "-m", "--labels", "-x", "--override"},
		flag:  []string{"-r", "--recreate", "-n", "--notest", "--skip-missing-interpreters", "-q", "--quiet", "-v", "--verbose", "--no-recreate-pkg"}}}}
	uvRunners   = nameTable[*wrapper]{{"run", uvRun}}
	yarnRunners = nameTable[*wrapper]{{"dlx", npmExec}, {"exec", npmExec}}
)

// bunxRun is bunx's (bun x's) options before the package it runs.
var bunxRun = &wrapper{kind: runsArgv, flag: []string{"--bun", "--silent", "--verbose"}, value: []string{"-p", "--package"}}

// runnerGroups are the subcommands that hold runner subcommands of their
// own (docker container exec, docker compose run, uv tool run, hatch env
// run).
var (
	dockerGroups = nameTable[*execOptions]{
		{"compose", &execOptions{global: true, runners: composeRunners,
			skip: []string{"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory", "--ansi", "--progress", "--parallel"}}},
		{"container", &execOptions{global: true, runners: dockerRunners}},
	}
	hatchGroups = nameTable[*execOptions]{{"env", &execOptions{global: true, runners: hatchEnvRunners}}}
	uvGroups    = nameTable[*execOptions]{{"tool", &execOptions{global: true, runners: uvRunners}}}
)

// pnpmCommands are pnpm's own commands and the npm commands it passes on:
// any other word in their place is a command pnpm runs as pnpm exec would
// (pnpm eslint), when no script of that name exists.
var pnpmCommands = []string{"access", "add", "adduser", "approve-builds", "audit", "bin", "bugs", "c", "cat-file",
	"cat-index", "completion", "config", "create", "dedupe", "deploy", "deprecate", "dist-tag", "dlx", "docs", "doctor",
	"edit", "env", "exec", "fetch", "find-hash", "get", "help", "home", "i", "ignored-builds", "import", "info", "init",
	"install", "install-completion", "install-test", "it", "la", "licenses", "link", "list", "ll", "ln", "login",
	"logout", "ls", "m", "multi", "outdated", "owner", "pack", "patch", "patch-commit", "patch-remove", "ping", "pkg",
	"prefix", "profile", "prune", "publish", "rb", "rebuild", "recursive", "remove", "repo", "restart", "rm", "root",
	"run", "run-script", "s", "sbom", "search", "self-update", "server", "set", "set-script", "setup", "star", "stars",
	"start", "stop", "store", "t", "team", "test", "token", "tst", "un", "uninstall", "unlink", "unpublish", "unstar",
	"up", "update", "upgrade", "version", "view", "whoami", "why"}

// anyCommand is how a program runs a command given in place of its
// subcommand (pnpm eslint): as it stands.
var anyCommand = &wrapper{kind: runsArgv}

// runner judges what the runner at ws[0] (uv run, npx) runs, as spec
// reads its options (see the top of this file): every reason the command
// there gives holds, but that no rule matches it.
func (a *analysis) runner(spec *wrapper, ws []word, depth int) Decision {
	sub := a.fresh()
	sub.wrapped(spec, ws, depth)
	a.variables = append(a.variables, sub.variables...)
	d := Decision(0)
	for j, r := range sub.reasons {
		if r.Kind == ReasonUnmatched {
			continue
		}
		d = Max(d, a.reason(r.Kind, sub.reasonDecisions[j], r.Detail))
	}
	a.safe = a.safe && sub.safe
	a.nonPlain = a.nonPlain || sub.nonPlain
	a.dynamic = a.dynamic || sub.dynamic
	a.dangerous = a.dangerous || sub.dangerous
	return d
}

// cutEnvPrefix returns ws with the word after its runner subcommand
// ws[i] cut of an "ENV:" before the command (hatch run ENV:CMD runs CMD in
// the environment ENV).
func cutEnvPrefix(ws []word, i int) []word {
	if i+1 >= len(ws) {
		return ws
	}
	cmd := ws[i+1]
	env, rest, ok := strings.Cut(cmd.value, ":")
	if !ok || !cmd.static || rest == "" || strings.ContainsAny(env, "/-") {
		return ws
	}
	ws = slices.Clone(ws)
	ws[i+1] = word{value: rest, src: rest, static: true, literal: cmd.literal}
	return ws
}

// runnerAfterUnknown returns the first of ws past the subcommand position
// i that names one of runners, when an option before i was not known to
// take no value: it may have, and the runner's subcommand be that word.
func runnerAfterUnknown(ws []word, i int, unknown bool, runners nameTable[*wrapper]) string {
	if !unknown {
		return ""
	}
	for _, w := range ws[i+1:] {
		if _, ok := runners.lookup(w.value); ok && w.static && !strings.HasPrefix(w.value, "-") {
			return w.value
		}
	}
	return ""
}

// Container runners beside docker's (see TestContainerRunners): ctr run
// IMAGE ID CMD and ctr container create (which names the command ctr task
// start runs), ctr task exec CONTAINER CMD, crictl exec CONTAINER CMD,
// singularity (apptainer) exec IMAGE CMD and shell IMAGE [SHELL ARGS],
// toolbox run CMD and enter, distrobox enter [NAME] [--|-e] CMD, whose
// words are joined and evaluated by a shell, and snap run SNAP.APP.
var (
	ctrRun = &wrapper{kind: runsArgv, operands: 2,
		value: []string{"--log-uri", "--fifo-dir", "--cgroup", "--platform", "--uidmap", "--gidmap", "--cpus", "--cpu-shares", "--snapshotter",
			"--snapshotter-label", "--cwd", "--env", "--env-file", "--label", "--annotation", "--mount", "--runtime", "--with-ns", "--pid-file",
			"--gpus", "--memory-limit", "--device", "--cap-add", "--cap-drop", "--seccomp-profile", "--apparmor-profile", "--rdt-class",
			"--cpu-quota", "--cpu-period", "--rootfs-propagation", "-u", "--user", "--hostname"},
		flag: []string{"--rm", "--null-io", "-d", "--detach", "--cni", "--remap-labels", "--net-host", "--privileged", "--read-only", "-t", "--tty",
			"--allow-new-privs", "--seccomp", "--apparmor-default-profile", "--rootfs", "--no-pivot"}}
	ctrTaskExec = &wrapper{kind: runsArgv, operands: 1,
		value: []string{"--cwd", "--exec-id", "--fifo-dir", "--log-uri", "-u", "--user"},
		flag:  []string{"-t", "--tty", "-d", "--detach"}}
	ctrContainerRunners = nameTable[*wrapper]{{"create", ctrRun}}
	ctrTaskRunners      = nameTable[*wrapper]{{"exec", ctrTaskExec}}
	ctrRunners          = nameTable[*wrapper]{{"run", ctrRun}}
	ctrGroups           = nameTable[*execOptions]{
		{"c", &execOptions{global: true, runners: ctrContainerRunners}},
		{"container", &execOptions{global: true, runners: ctrContainerRunners}},
		{"containers", &execOptions{global: true, runners: ctrContainerRunners}},
		{"t", &execOptions{global: true, runners: ctrTaskRunners}},
		{"task", &execOptions{global: true, runners: ctrTaskRunners}},
		{"tasks", &execOptions{global: true, runners: ctrTaskRunners}},
	}
	crictlRunners = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv, operands: 1,
		value: []string{"--timeout", "--transport"},
		flag:  []string{"-i", "--interactive", "-t", "--tty", "-it", "-ti", "-s", "--sync"}}}}
	singularityValue = []string{"-B", "--bind", "-H", "--home", "-W", "--workdir", "--env", "--env-file", "-o", "--overlay", "-S", "--scratch",
		"--app", "--security", "--hostname", "--dns", "--network", "--network-args", "--pwd", "--add-caps", "--drop-caps", "--mount", "--cpus",
		"--memory", "--fusemount", "--apply-cgroups"}
	singularityFlag = []string{"-e", "--cleanenv", "-C", "--containall", "-c", "--contain", "--nv", "--rocm", "-w", "--writable",
		"--writable-tmpfs", "-u", "--userns", "-f", "--fakeroot", "--no-home", "--no-init", "--no-privs", "--keep-privs", "-p", "--pid", "-i",
		"--ipc", "--uts", "--net", "--compat"}
	singularityRunners = nameTable[*wrapper]{
		{"exec", &wrapper{kind: runsArgv, operands: 1, value: singularityValue, flag: singularityFlag}},
		{"shell", &wrapper{kind: runsNone, shellArgs: true, value: singularityValue, flag: singularityFlag}},
	}
	toolboxValue   = []string{"-c", "--container", "-d", "--distro", "-r", "--release"}
	toolboxRunners = nameTable[*wrapper]{
		{"enter", &wrapper{kind: runsArgv, operands: 1, startsShellAlone: true, value: toolboxValue}},
		{"run", &wrapper{kind: runsArgv, value: []string{"-c", "--container", "-d", "--distro", "-r", "--release", "--preserve-fds"}}},
	}
	distroboxEnter = &wrapper{kind: runsJoined, permute: true, startsShellAlone: true, endOpts: []string{"-e", "--exec"},
		value:  []string{"-n", "--name"},
		flag:   []string{"-v", "--verbose", "-T", "-H", "--no-tty", "-r", "--root", "-nw", "--no-workdir", "-Y", "--yes"},
		noExec: []string{"-h", "--help", "-V", "--version", "-d", "--dry-run"}}
	distroboxRunners = nameTable[*wrapper]{{"enter", distroboxEnter}}
	snapRunners      = nameTable[*wrapper]{{"run", &wrapper{kind: runsArgv, flag: []string{"--debug-log", "--trace-exec"}}}}
)

// Environment runners: nix shell and develop run -c CMD ARGS after the
// installables, or an interactive shell; nix run runs the program of an
// installable, which none of its words names. guix shell PKGS -- CMD,
// devbox run, mise exec TOOLS -- CMD (-c CMD through a shell), asdf exec,
// the *env version managers' exec, volta run, fnm exec, nvm exec and run
// (whose first operand is a version, or else the command) and scl
// enable COLL... CMD, whose every operand may be the command, a script.
var (
	nixValue = []string{"-f", "--file", "--expr", "--inputs-from", "--profile", "-I", "--include", "--system", "-k", "--keep", "-u", "--unset",
		"--store", "--eval-store", "--log-format", "--extra-experimental-features", "--experimental-features", "--reference-lock-file"}
	nixFlag = []string{"--impure", "-i", "--ignore-environment", "--offline", "--refresh", "--no-write-lock-file", "--recreate-lock-file",
		"-L", "--print-build-logs", "-v", "--verbose", "--quiet", "--debug", "--json"}
	nixShell   = &wrapper{kind: runsArgv, permute: true, startsShellAlone: true, endOpts: []string{"-c", "--command"}, value: nixValue, flag: nixFlag}
	nixRunners = nameTable[*wrapper]{
		{"develop", nixShell},
		{"run", &wrapper{kind: runsArgv, unsure: "runs the program of an installable", value: nixValue, flag: nixFlag}},
		{"shell", nixShell},
	}
	guixShell = &wrapper{kind: runsArgv, permute: true, startsShellAlone: true,
		value: []string{"-m", "--manifest", "-f", "--file", "-e", "--expression", "-r", "--root", "-p", "--profile", "-L", "--load-path", "-s", "--system"},
		flag:  []string{"--pure", "-C", "--container", "-N", "--network", "-P", "--link-profile", "--check", "-q", "--no-substitutes", "-F", "--emulate-fhs", "-D", "--development"}}
	guixRunners   = nameTable[*wrapper]{{"environment", guixShell}, {"shell", guixShell}}
	devboxRunners = nameTable[*wrapper]{{"run", &wrapper{kind: runsArgv, value: []string{"-c", "--config", "-e", "--env", "--env-file"}, flag: []string{"--pure", "-q", "--quiet"}}}}
	miseExec      = &wrapper{kind: runsArgv, permute: true, startsShellAlone: true, script: []string{"-c", "--command"},
		value: []string{"-j", "--jobs", "-C", "--cd"}, flag: []string{"--raw", "-q", "--quiet", "-v", "--verbose", "-y", "--yes", "--fresh-env", "--no-prepare"}}
	miseRunners  = nameTable[*wrapper]{{"exec", miseExec}, {"x", miseExec}}
	asdfRunners  = nameTable[*wrapper]{{"env", &wrapper{kind: runsArgv, operands: 1}}, {"exec", anyCommand}}
	envExec      = nameTable[*wrapper]{{"exec", anyCommand}}
	voltaRunners = nameTable[*wrapper]{{"run", &wrapper{kind: runsArgv, value: []string{"--node", "--npm", "--yarn", "--pnpm", "--env"},
		flag: []string{"--bundled-npm", "--no-yarn", "--no-pnpm", "--verbose", "--quiet"}}}}
	fnmRunners = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv, value: []string{"--using"}, flag: []string{"--using-file"}}}}
	nvmExec    = &wrapper{kind: runsArgv, unsure: "its first operand is a version, or else the command", flag: []string{"--silent"}, optValue: []string{"--lts"}}
	nvmRunners = nameTable[*wrapper]{{"exec", nvmExec}, {"run", nvmExec}}
	sclRunners = nameTable[*wrapper]{{"enable", &wrapper{kind: runsEach}}, {"run", &wrapper{kind: runsEach}}}
)

// nerdctlGlobalValue are nerdctl's global options whose value is the next
// word.
var nerdctlGlobalValue = []string{"-H", "--host", "-a", "--address", "-n", "--namespace", "--snapshotter", "--storage-driver", "--cgroup-manager",
	"--data-root", "--cni-path", "--cni-netconfpath", "--host-gateway-ip", "--hosts-dir"}
