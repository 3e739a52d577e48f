package execpolicy

import "strings"

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

// kubectlExec is kubectl exec's options; the pod is the one operand
// before the command (after "--" in current kubectl).
var kubectlExec = &wrapper{kind: runsArgv, operands: 1,
	value: []string{"-c", "--container", "-n", "--namespace", "-f", "--filename", "--context", "--pod-running-timeout"},
	flag:  []string{"-i", "--stdin", "-t", "--tty", "-it", "-ti", "-q", "--quiet"},
}

// runnerSubcommands names, for each program with runner subcommands, the
// subcommands and how each reads its options.
var (
	bundleRunners = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv, flag: []string{"--keep-file-descriptors"}, value: []string{"--gemfile"}}}}
	condaRunners  = nameTable[*wrapper]{{"run", &wrapper{kind: runsArgv,
		value: []string{"-n", "--name", "-p", "--prefix", "--cwd"},
		flag:  []string{"--no-capture-output", "--live-stream", "-v", "--verbose", "--debug-wrapper-scripts"}}}}
	direnvRunners = nameTable[*wrapper]{{"exec", &wrapper{kind: runsArgv, operands: 1}}}
	dockerRunners = nameTable[*wrapper]{{"exec", dockerExec}}
	kubectlRuns   = nameTable[*wrapper]{{"exec", kubectlExec}}
	npmRunners    = nameTable[*wrapper]{{"exec", npmExec}, {"x", npmExec}}
	pixiRunners   = nameTable[*wrapper]{{"run", &wrapper{kind: runsArgv,
		value: []string{"-e", "--environment", "--manifest-path"},
		flag:  []string{"--frozen", "--locked", "--clean-env", "-q", "--quiet", "-v", "--verbose"}}}}
	pnpmRunners = nameTable[*wrapper]{{"dlx", npmExec}, {"exec", npmExec}}
	pythonRun   = nameTable[*wrapper]{{"run", pythonEnvRun}}
	uvRunners   = nameTable[*wrapper]{{"run", uvRun}}
	yarnRunners = nameTable[*wrapper]{{"dlx", npmExec}, {"exec", npmExec}}
)

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
