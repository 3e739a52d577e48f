package execpolicy

import (
	"slices"
	"strings"
)

// Build tools take options that name a program they run: go's -exec,
// -toolexec and -vettool, and the external linker of -ldflags; cargo's
// --config (a runner, a rustc wrapper, a linker); npm's --script-shell
// and its kin. An allow rule for "go test" says nothing of them: "go test
// -exec 'rm x' ./..." runs rm.

// goRuns are go's flags whose value is a program it runs; goLinkerRuns
// the linker flags, within -ldflags, whose value is one.
var (
	goRuns       = []string{"exec", "toolexec", "vettool"}
	goLinkerRuns = []string{"extld", "extar"}
)

// goArgs judges go's arguments (execOptions.script): its flags are read
// with one dash or two, the value after "=" or in the next word, up to
// -args, after which they are the test binary's.
func goArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	if len(ws) > 2 && ws[1].value == "env" && slices.ContainsFunc(ws[2:], func(w word) bool { return w.value == "-w" || w.value == "-u" }) {
		// GOFLAGS=-toolexec=CMD, CC=CMD: what every later go command runs.
		d = Max(d, a.unanalysable(prog+" env -w: sets what later go commands run"))
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		if !w.static || !strings.HasPrefix(v, "-") {
			continue
		}
		name, val, hasEq := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "-"), "=")
		switch {
		case name == "args" || name == "":
			return d
		case slices.Contains(goRuns, name):
			d = Max(d, a.unanalysable(prog+" -"+name+" runs a command"))
			if value := longValue(ws, &i, val, hasEq); value != nil && value.static {
				d = Max(d, a.forbiddenIn(value.value, depth))
			}
		case name == "ldflags":
			value := longValue(ws, &i, val, hasEq)
			if value == nil || !value.static {
				continue
			}
			for _, f := range strings.Fields(value.value) {
				lf, lv, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
				if slices.Contains(goLinkerRuns, lf) {
					d = Max(d, a.unanalysable(prog+" -ldflags -"+lf+" runs a command"))
					d = Max(d, a.forbiddenIn(strings.Trim(lv, `'"`), depth))
				}
			}
		}
	}
	return d
}

// cargoArgs judges cargo's arguments (execOptions.script): --config sets
// any configuration value, the programs cargo runs among them
// (target.*.runner, build.rustc-wrapper, linker), or names a file of
// them. Its string values are searched for forbidden commands.
func cargoArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		if !w.static {
			continue
		}
		if v == "--" {
			return d
		}
		name, val, hasEq := strings.Cut(v, "=")
		if name != "--config" {
			continue
		}
		d = Max(d, a.unanalysable(prog+" --config: may set a program cargo runs"))
		if value := longValue(ws, &i, val, hasEq); value != nil && value.static {
			for _, s := range awkStrings(value.value) {
				d = Max(d, a.forbiddenIn(s, depth))
			}
		}
	}
	return d
}

// npmRunsConfig are the npm configuration options whose value is a
// program npm runs (a script's shell, git, the editor, node-gyp) or code
// node runs (--node-options --require), or a configuration file that may
// set them. npm reads them anywhere among its arguments.
var npmRunsConfig = []string{"--script-shell", "--shell", "--git", "--editor", "--browser", "--viewer",
	"--node-gyp", "--node-options", "--userconfig", "--globalconfig", "--shell-emulator"}

// anywhereOptions judges spec.anywhere in ws: each makes the command
// unanalysable, and its value is searched for forbidden commands.
func (a *analysis) anywhereOptions(spec *execOptions, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue
		}
		if w.value == "--" {
			break // what follows is a script's or a command's
		}
		name, val, hasEq := strings.Cut(w.value, "=")
		if !slices.Contains(spec.anywhere, name) {
			continue
		}
		d = Max(d, a.unanalysable(prog+" "+name+" names a program it runs"))
		if value := longValue(ws, &i, val, hasEq); value != nil && value.static {
			d = Max(d, a.forbiddenIn(value.value, depth))
		}
	}
	return d
}
