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
// the linker flags, within -ldflags, whose value is one; goCFlags the
// flags whose value is flags of the C compiler or linker, which name
// programs too (gcc's -B, -wrapper, --ld-path).
var (
	goRuns       = []string{"exec", "toolexec", "vettool"}
	goLinkerRuns = []string{"extld", "extar"}
	goCFlags     = []string{"gccgoflags"}
)

// goArgs judges go's arguments (execOptions.script): its flags are read
// with one dash or two, the value after "=" or in the next word, up to
// -args, after which they are the test binary's.
func goArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	if len(ws) > 2 && ws[1].value == "env" && slices.ContainsFunc(ws[2:], goEnvWrites) {
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
		case name == "ldflags" || slices.Contains(goCFlags, name):
			value := longValue(ws, &i, val, hasEq)
			if value == nil || !value.static {
				continue
			}
			flags := goPackageFlags(value.value)
			if name == "ldflags" {
				d = Max(d, goLinkerFlags(a, prog, flags, depth))
			} else {
				d = Max(d, cFlags(a, prog+" -"+name, flags, depth))
			}
		}
	}
	return d
}

// goEnvWrites reports whether w is go env's -w or -u, with one dash or
// two, or a value after "=" (-w=true).
func goEnvWrites(w word) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(w.value, "-"), "-"), "=")
	return strings.HasPrefix(w.value, "-") && (name == "w" || name == "u")
}

// goPackageFlags returns the flags of a per-package flag's value
// ([pattern=]flags: a value not starting with "-" names the packages it
// is for before its first "="), split into fields as go splits them.
func goPackageFlags(v string) []string {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "-") {
		if _, flags, ok := strings.Cut(v, "="); ok {
			v = flags
		}
	}
	return quotedFields(v)
}

// goLinkerFlags judges flags, the link tool's: -extld and -extar name a
// program it runs, their value attached or the next field; -extldflags
// are the external linker's (cFlags).
func goLinkerFlags(a *analysis, prog string, flags []string, depth int) Decision {
	d := Decision(0)
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		if !strings.HasPrefix(f, "-") {
			continue
		}
		name, val, hasEq := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-"), "=")
		if !hasEq && (slices.Contains(goLinkerRuns, name) || name == "extldflags") && i+1 < len(flags) {
			i++
			val = flags[i]
		}
		switch {
		case slices.Contains(goLinkerRuns, name):
			d = Max(d, a.unanalysable(prog+" -ldflags -"+name+" runs a command"))
			d = Max(d, a.forbiddenIn(strings.Trim(val, `'"`), depth))
		case name == "extldflags":
			d = Max(d, cFlags(a, prog+" -ldflags -extldflags", quotedFields(val), depth))
		}
	}
	return d
}

// safeCFlags are C compiler and linker flags that run no program but the
// compiler's own: any other (-B DIR, -wrapper PROG, --ld-path, @FILE,
// -specs, -fplugin, -Wl,-plugin) may.
var safeCFlags = []string{"-static", "-static-pie", "-static-libgcc", "-static-libstdc++", "-pie", "-no-pie",
	"-s", "-pthread", "-m32", "-m64", "-fPIC", "-fPIE", "-O0", "-O1", "-O2", "-O3", "-Os", "-g",
	"-fuse-ld=bfd", "-fuse-ld=gold", "-fuse-ld=lld", "-fuse-ld=mold"}

// safeCFlagPrefixes are the prefixes of C flags with a value attached
// that run nothing: libraries, their directories, include directories and
// macros.
var safeCFlagPrefixes = []string{"-l", "-L", "-I", "-D"}

// cFlags judges flags given to a C compiler or linker (what): one not of
// safeCFlags (nor -l, -L, -I or -D) makes the command unanalysable, and
// its text, commas read as spaces (-wrapper PROG,ARGS), is searched for
// forbidden commands.
func cFlags(a *analysis, what string, flags []string, depth int) Decision {
	d := Decision(0)
	for _, f := range flags {
		if slices.Contains(safeCFlags, f) || slices.ContainsFunc(safeCFlagPrefixes, func(p string) bool {
			return len(f) > len(p) && strings.HasPrefix(f, p)
		}) {
			continue
		}
		d = Max(d, a.unanalysable(what+" "+f+": the C toolchain may run a program it names"))
		d = Max(d, a.forbiddenIn(strings.ReplaceAll(f, ",", " "), depth))
	}
	return d
}

// quotedFields splits s at spaces outside quotes, as go splits its flag
// lists (cmd/internal/quoted): a field in '...' or "..." is taken
// without the quotes.
func quotedFields(s string) []string {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return out
		}
		if q := s[0]; q == '\'' || q == '"' {
			f, rest, _ := strings.Cut(s[1:], string(q))
			out = append(out, f)
			s = rest
			continue
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
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

// npmExactKeys are the npm configuration keys that are prefixes of
// npmRunsConfig entries: named in full, they are themselves.
var npmExactKeys = []string{"--global", "--shell"}

// npmOption returns the option of opts that name is or, as npm's option
// parser (nopt) expands a unique prefix of a key, abbreviates (--scr is
// --script-shell), or "". An ambiguous prefix is taken for the first:
// stricter.
func npmOption(name string, opts []string) string {
	if slices.Contains(opts, name) {
		return name
	}
	if len(name) < len("--xy") || !strings.HasPrefix(name, "--") || slices.Contains(npmExactKeys, name) {
		return ""
	}
	return longPrefixOf(name, opts)
}

// npmConfigCommands are npm's (and pnpm's) commands that set its
// configuration, which later commands read: "npm config set
// script-shell CMD" is what every later script runs in.
var npmConfigCommands = nameTable[*execOptions]{
	{"c", &execOptions{script: npmConfigArgs}},
	{"config", &execOptions{script: npmConfigArgs}},
	{"set", &execOptions{script: npmConfigArgs}},
}

// npmConfigArgs judges the arguments of npm config (execOptions.script):
// a key of npmRunsConfig, as KEY VALUE or KEY=VALUE, makes the command
// unanalysable, and its value is searched for forbidden commands.
func npmConfigArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue
		}
		key, val, hasEq := strings.Cut(w.value, "=")
		if npmOption("--"+strings.TrimLeft(key, "-"), npmRunsConfig) == "" {
			continue
		}
		d = Max(d, a.unanalysable(prog+" "+key+": sets a program npm runs"))
		if value := longValue(ws, &i, val, hasEq); value != nil && value.static {
			d = Max(d, a.forbiddenIn(value.value, depth))
		}
	}
	return d
}

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
		if name = npmOption(name, spec.anywhere); name == "" {
			continue
		}
		d = Max(d, a.unanalysable(prog+" "+name+" names a program it runs"))
		if value := longValue(ws, &i, val, hasEq); value != nil && value.static {
			d = Max(d, a.forbiddenIn(value.value, depth))
		}
	}
	return d
}
