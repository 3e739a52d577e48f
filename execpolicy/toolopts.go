package execpolicy

import (
	"slices"
	"strings"
)

// Readers of the options of file tools, test runners and build tools
// that name a program they run or a module they load (round 11): gs,
// ImageMagick, wget, cmake, pytest and openssl.

// gsPipe returns the command of a Ghostscript file name that is a pipe
// (%pipe%CMD or |CMD), and whether it is one.
func gsPipe(v string) (string, bool) {
	if cmd, ok := strings.CutPrefix(v, "%pipe%"); ok {
		return cmd, true
	}
	return strings.CutPrefix(v, "|")
}

// gsArgs judges the arguments of Ghostscript and its scripts (ps2pdf
// and the like; execOptions.script): -dNOSAFER and -dDELAYSAFER let
// PostScript open a pipe, --permit-file-* lets it open one anyway, @FILE
// is a file of options, and an output file or operand that is a pipe
// runs a command, which is searched for forbidden commands. "gs
// -dNOSAFER f.ps" (f.ps opening "(%pipe%./x) (w) file"), -dDELAYSAFER,
// -dNOSAFER#true, --permit-file-write='%pipe%*', "gs @rsp",
// "-sOutputFile=%pipe%./x", "-sOutputFile=|./x", "-sOutputFile#|./x" and
// "-o '|./x'" ran x (Ghostscript 10.00.0) while judged allow.
func gsArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	pipe := func(v string) {
		if cmd, ok := gsPipe(v); ok {
			d = Max(d, a.unanalysable(prog+": "+v+" pipes to a command"))
			d = Max(d, a.forbiddenIn(cmd, depth))
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		if !w.static {
			continue
		}
		name, val := gsDefine(v)
		switch {
		case strings.HasPrefix(v, "@"):
			d = Max(d, a.unanalysable(prog+" "+v+": reads its options from a file"))
		case len(name) > 2 && (name[1] == 'd' || name[1] == 'D') && name[0] == '-' &&
			(name[2:] == "NOSAFER" || name[2:] == "DELAYSAFER"):
			d = Max(d, a.unanalysable(prog+" "+name+": PostScript may run commands"))
		case strings.HasPrefix(v, "--permit"):
			d = Max(d, a.unanalysable(prog+" "+name+": PostScript may open a pipe"))
		case v == "-o":
			if next := nextWord(ws, &i); next != nil && next.static {
				pipe(next.value)
			}
		case strings.HasPrefix(v, "-o"):
			pipe(v[2:])
		case name == "-sOutputFile" || name == "-SOutputFile":
			pipe(val)
		default:
			pipe(v)
		}
	}
	return d
}

// gsDefine splits v, a -dNAME=VALUE or -sNAME=VALUE definition, at its
// first "=" or "#": Ghostscript takes "#" for "=" (-dNOSAFER#true,
// -sOutputFile#|CMD). It splits at an "=" anywhere before a "#", so that
// "-sOutputFile#|x=y" names no OutputFile there; splitting at the first of
// either reads the OutputFile, which is only stricter.
func gsDefine(v string) (name, val string) {
	if j := strings.IndexAny(v, "=#"); j >= 0 {
		return v[:j], v[j+1:]
	}
	return v, ""
}

// imageMagickArgs judges the arguments of ImageMagick's programs
// (execOptions.script): a file name that starts with "|", or has one
// after its format (png:|CMD), is a pipe ImageMagick opens through a
// shell where it is built with pipes; Debian 12's 6.9.11 is built
// without them ("convert '|touch x' o.png" ran nothing there), which is
// why this is only stricter.
func imageMagickArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for _, w := range ws[1:] {
		if !w.static {
			continue
		}
		v := w.value
		format, cmd, ok := strings.Cut(v, "|")
		if !ok || format != "" && (!strings.HasSuffix(format, ":") || strings.ContainsAny(format, "/ ")) {
			continue // no pipe, or a | inside a name or an argument
		}
		d = Max(d, a.unanalysable(prog+": "+v+" may pipe to a command"))
		d = Max(d, a.forbiddenIn(cmd, depth))
	}
	return d
}

// wgetOptions are wget's options that take a value: short ones attached
// or in the next word ('n' takes the letter after it: -nv), and the long
// ones looked at, --use-askpass's only after "=".
var wgetOptions = getopt{valued: "oaiBtOTwQPUDXIARle", letter: "n", long: []string{"--execute", "--config"}, longAttached: []string{"--use-askpass"}}

// wgetArgs judges wget's arguments (execOptions.script): --use-askpass
// names a program wget runs for a user name and password, -e (--execute)
// runs a wgetrc command, use_askpass among them, and --config reads a
// wgetrc. "wget --use-askpass=./x URL", "wget -e use_askpass=./x URL",
// --execute and "wget --config=rc URL" ran x (GNU Wget 1.21.3) while
// judged allow.
func wgetArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	askpass := func(cmd *word) {
		d = Max(d, a.unanalysable(prog+" use_askpass runs a command"))
		if cmd != nil && cmd.static {
			d = Max(d, a.forbiddenIn(cmd.value, depth))
		}
	}
	execute := func(v *word) {
		if v == nil || !v.static {
			d = Max(d, a.unanalysable(prog+" -e: a dynamic wgetrc command"))
			return
		}
		// wgetrc names ignore case, "-" and "_".
		name, val, _ := strings.Cut(v.value, "=")
		name = strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "", "\t", "").Replace(name))
		if name == "useaskpass" {
			askpass(&word{value: val, src: val, static: true})
		}
	}
	for opt, v := range wgetOptions.options(ws) {
		switch opt {
		case "--use-askpass":
			askpass(v) // without one, $WGET_ASKPASS
		case "-e", "--execute":
			execute(v)
		case "--config":
			d = Max(d, a.unanalysable(prog+" --config: a wgetrc may set use_askpass"))
		}
	}
	return d
}

// cmakeSafeTools are cmake -E's tools that run nothing; cmakeRunsTools
// run the command after their operands (chdir DIR CMD, env [NAME=VALUE]
// CMD, time CMD).
var (
	cmakeSafeTools = []string{"capabilities", "cat", "compare_files", "copy", "copy_directory", "copy_directory_if_different",
		"copy_if_different", "create_hardlink", "create_symlink", "echo", "echo_append", "environment", "false",
		"make_directory", "md5sum", "remove", "remove_directory", "rename", "rm", "sha1sum", "sha224sum", "sha256sum",
		"sha384sum", "sha512sum", "sleep", "tar", "touch", "touch_nocreate", "true"}
	cmakeSafeVars = []string{"CMAKE_BUILD_TYPE", "CMAKE_INSTALL_PREFIX", "CMAKE_EXPORT_COMPILE_COMMANDS", "CMAKE_VERBOSE_MAKEFILE",
		"CMAKE_POSITION_INDEPENDENT_CODE", "CMAKE_C_STANDARD", "CMAKE_CXX_STANDARD", "CMAKE_CXX_STANDARD_REQUIRED",
		"CMAKE_CXX_EXTENSIONS", "CMAKE_PREFIX_PATH", "CMAKE_INSTALL_LIBDIR", "CMAKE_INSTALL_BINDIR", "CMAKE_INSTALL_INCLUDEDIR",
		"CMAKE_COLOR_DIAGNOSTICS", "CMAKE_UNITY_BUILD", "CMAKE_INTERPROCEDURAL_OPTIMIZATION"}
)

// cmakeArgs judges cmake's arguments (execOptions.script): -E chdir, env
// and time run the command after them, which is searched for forbidden
// commands, and any -E tool not of cmakeSafeTools is unanalysable; -P
// and -C run a CMake script (execute_process), --toolchain and a -D of
// a CMAKE_ variable not of cmakeSafeVars (CMAKE_PROJECT_INCLUDE,
// CMAKE_MAKE_PROGRAM, CMAKE_C_COMPILER, CMAKE_C_FLAGS, ...) may name
// one or a program, and arguments after "--build DIR --" go to the
// native build tool. "cmake -E env ./x", "-E time", "-E chdir . ./x",
// "cmake -P s.cmake", "cmake -C s.cmake -S d -B b" and
// "-DCMAKE_PROJECT_INCLUDE=s.cmake" ran x (cmake 3.25.1) while judged
// allow.
func cmakeArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	build := false
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		if !w.static {
			continue
		}
		switch {
		case v == "-E":
			tool := nextWord(ws, &i)
			if tool == nil {
				return d
			}
			switch {
			case !tool.static:
				d = Max(d, a.unanalysable(prog+" -E: a dynamic tool"))
			case tool.value == "chdir" || tool.value == "env" || tool.value == "time":
				d = Max(d, a.unanalysable(prog+" -E "+tool.value+" runs a command"))
				rest := ws[i+1:]
				switch {
				case tool.value == "chdir" && len(rest) > 0:
					rest = rest[1:]
				case tool.value == "env":
					// env's --unset=NAME, --modify OP, NAME=VALUE and --.
					for len(rest) > 0 && (strings.HasPrefix(rest[0].value, "-") || strings.Contains(rest[0].value, "=")) {
						end := rest[0].value == "--"
						rest = rest[1:]
						if end {
							break
						}
					}
				}
				cmd := make([]string, len(rest))
				for k, r := range rest {
					cmd[k] = r.value
				}
				d = Max(d, a.forbiddenIn(strings.Join(cmd, " "), depth))
			case !slices.Contains(cmakeSafeTools, tool.value):
				d = Max(d, a.unanalysable(prog+" -E "+tool.value+": may run a command"))
			}
			return d
		case v == "-P" || v == "-C" || v == "--toolchain" || strings.HasPrefix(v, "--toolchain="):
			d = Max(d, a.unanalysable(prog+" "+v+": runs a CMake script, which may run commands"))
			if !strings.Contains(v, "=") {
				nextWord(ws, &i)
			}
		case strings.HasPrefix(v, "-C"):
			d = Max(d, a.unanalysable(prog+" -C: runs a CMake script, which may run commands"))
		case strings.HasPrefix(v, "-D"):
			def := v[2:]
			if def == "" {
				next := nextWord(ws, &i)
				if next == nil || !next.static {
					d = Max(d, a.unanalysable(prog+" -D: a dynamic definition"))
					continue
				}
				def = next.value
			}
			name, val, _ := strings.Cut(def, "=")
			name, _, _ = strings.Cut(name, ":")
			if strings.HasPrefix(name, "CMAKE_") && !slices.Contains(cmakeSafeVars, name) {
				d = Max(d, a.unanalysable(prog+" -D"+name+": may name a program or script cmake runs"))
				d = Max(d, a.forbiddenIn(val, depth))
			}
		case v == "--build":
			build = true
		case v == "--" && build && i+1 < len(ws):
			d = Max(d, a.unanalysable(prog+" --build ... --: hands arguments to the native build tool"))
			return d
		}
	}
	return d
}

// pytestArgs judges pytest's arguments (execOptions.script): -p NAME
// (other than -p no:NAME) imports a module as a plugin, --pdbcls one as
// the debugger, -W's category (ignore::MOD.CLASS) one as a warning
// class, -o (--override-ini) may set addopts to any of them, and -c
// (--config-file) reads an ini file that may. "pytest -p evilplug",
// "pytest --pdb --pdbcls=evilplug:X", "pytest -o 'addopts=-p evilplug'"
// and "pytest -W 'ignore::evilplug.X'" ran evilplug's code (pytest 7.2.1,
// evilplug.py on PYTHONPATH) while judged allow. Two readings cover every
// argument, "--" or not: @FILE (pytestArgFile) and the plugin pre-scan
// (pytestPreparse).
func pytestArgs(a *analysis, ws []word, _ int) Decision {
	prog := ws[0].value
	d := Max(pytestArgFile(a, ws), pytestPreparse(a, ws))
	loads := func(opt string, v *word) {
		if opt == "-p" && v != nil && v.static && strings.HasPrefix(v.value, "no:") {
			return
		}
		if opt == "-W" && v != nil && v.static && !pytestWarningImports(v.value) {
			return
		}
		d = Max(d, a.unanalysable(prog+" "+opt+": may import a module of the caller's choosing"))
	}
	for opt, v := range pytestOptions.options(ws) {
		switch opt {
		case "--pythonwarnings":
			loads("-W", v)
		case "-p", "-o", "-c", "-W", "--pdbcls", "--override-ini", "--config-file":
			loads(opt, v)
		}
	}
	return d
}

// pytestOptions are pytest's options that take a value.
var pytestOptions = getopt{valued: "pocWkmr", long: []string{"--pdbcls", "--override-ini", "--config-file", "--pythonwarnings"}}

// pytestArgFile makes an @FILE argument unanalysable: pytest 8.2 reads
// arguments from the file (argparse's fromfile_prefix_chars), as gs, the
// C toolchain and rustc do. argparse replaces every such argument, after
// "--" and in an option's value too, so every word is looked at.
func pytestArgFile(a *analysis, ws []word) Decision {
	for _, w := range ws[1:] {
		if w.static && strings.HasPrefix(w.value, "@") {
			return a.unanalysable(ws[0].value + " " + w.value + ": reads its arguments from a file")
		}
	}
	return 0
}

// pytestPreparse judges the plugins of pytest's pre-scan
// (PytestPluginManager.consider_preparse), which imports NAME for every
// argument "-p" followed by NAME, or "-pNAME", wherever it is: after "--"
// too ("pytest -- -p evilplug" imported evilplug, pytest 7.2.1). "no:NAME"
// only blocks one.
func pytestPreparse(a *analysis, ws []word) Decision {
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static || !strings.HasPrefix(w.value, "-p") {
			continue
		}
		name := w.value[2:]
		if name == "" && i+1 < len(ws) {
			i++
			if !ws[i].static {
				continue // dynamic: the command is not plain already
			}
			name = ws[i].value
		}
		if !strings.HasPrefix(strings.TrimSpace(name), "no:") {
			return a.unanalysable(ws[0].value + " " + w.value + ": may import a module of the caller's choosing")
		}
	}
	return 0
}

// pytestWarningImports reports whether a warning filter
// (action:message:category:module:line) names a category in a module,
// which Python imports to find the class.
func pytestWarningImports(filter string) bool {
	parts := strings.Split(filter, ":")
	return len(parts) > 2 && strings.Contains(parts[2], ".")
}

// opensslLoads are openssl's options whose value is a shared object it
// loads or a configuration file that may name one.
var opensslLoads = []string{"engine", "provider", "provider-path", "config", "ssl_client_engine", "keyengine"}

// opensslArgs judges openssl's arguments (execOptions.script): -engine,
// -provider and -provider-path load a shared object, -config may name one,
// and "openssl engine" loads the engines named after it. "openssl req
// -engine ./p.so ...", "openssl rand -engine ./p.so 4", "openssl rand
// -provider /abs/p.so 4", "openssl list -provider-path . -provider p",
// "openssl engine dynamic -pre SO_PATH:p.so -pre LOAD" and "openssl req
// -config c.cnf" (a provider module) ran its constructor (OpenSSL 3.0.19)
// while judged allow.
func opensslArgs(a *analysis, ws []word, _ int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		if !w.static {
			continue
		}
		if i == 1 && v == "engine" && len(ws) > 2 {
			d = Max(d, a.unanalysable(prog+" engine: loads the engines it names"))
			continue
		}
		if !strings.HasPrefix(v, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "-"), "=")
		if slices.Contains(opensslLoads, name) {
			d = Max(d, a.unanalysable(prog+" -"+name+": loads a shared object"))
		}
	}
	return d
}
