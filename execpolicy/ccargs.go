package execpolicy

import (
	"slices"
	"strings"
)

// The C toolchain runs programs and loads plugins its options name: the
// driver's -wrapper runs every subprocess through a program, -B and
// --prefix pick the directory of as, cc1 and collect2, -specs may make
// any program the linker, -fplugin and clang's -fpass-plugin load a
// shared object, clang's -fuse-ld=PATH, --ld-path and --config name the
// linker or a file of options, and @FILE is a file of options. The
// linker, and ar, nm and ranlib, load --plugin (lld --load-pass-plugin
// too); -Wl, -Xlinker, -Wp, -Xpreprocessor, -Xclang and the other -X
// options hand a flag on to another tool, which is read the same way.

// ccSafeLinkers are the linkers -fuse-ld may name without a path.
var ccSafeLinkers = []string{"bfd", "gold", "lld", "mold"}

// ccArgs judges the arguments of a C compiler driver (gcc, clang, cpp,
// cc1; execOptions.script): each flag that names a program, plugin,
// directory of programs or file of options makes the command
// unanalysable, and a program it names is searched for forbidden
// commands. "gcc -wrapper ./x,arg a.c", "gcc -fplugin=./p.so a.c", "gcc
// -B ./d a.c" (d/as), "gcc -specs=s a.c" (*linker), "gcc -Wl,-plugin,p.so",
// "gcc -Wp,-fplugin=p.so", "gcc @rsp", "clang --ld-path=./x", "clang
// -fuse-ld=$PWD/x", "clang --config ./c.cfg" and "clang -Xclang -load
// -Xclang p.so" ran the program or the plugin's constructor (gcc 12.2,
// clang 14) while judged allow by an allow rule for the compiler.
func ccArgs(a *analysis, ws []word, depth int) Decision {
	return toolchainArgs(a, ws, false, depth)
}

// ldArgs judges the arguments of a linker, of collect2 and of ar, nm and
// ranlib (execOptions.script): --plugin and -plugin load a shared object
// ("ld --plugin ./p.so", "nm --plugin ./p.so f" and "ranlib --plugin
// ./p.so lib.a" ran its constructor, binutils 2.40), as lld's
// --load-pass-plugin does when it links bitcode ("ld.lld
// --load-pass-plugin=./p.so m.o", LLD 16.0.6), -plugin-opt may name the
// LTO wrapper it runs, and @FILE is a file of options.
func ldArgs(a *analysis, ws []word, depth int) Decision {
	return toolchainArgs(a, ws, true, depth)
}

// toolchainArgs reads ws with ccFlag; a dynamic word stands as one that
// names nothing, so that the values after it stay in place.
func toolchainArgs(a *analysis, ws []word, ld bool, depth int) Decision {
	args := make([]string, len(ws))
	for i, w := range ws {
		if w.static {
			args[i] = w.value
		}
	}
	d := Decision(0)
	for i := 1; i < len(args); i++ {
		d = Max(d, ccFlag(a, args[0], args, &i, ld, depth))
	}
	return d
}

// ccFlag judges args[*i], a flag of a C compiler driver, or of a linker
// when ld is set (where -B is -Bstatic and the like), moving *i past a
// value it takes from the next argument.
func ccFlag(a *analysis, prog string, args []string, i *int, ld bool, depth int) Decision {
	f := args[*i]
	next := func() string {
		if *i+1 < len(args) {
			*i++
			return args[*i]
		}
		return ""
	}
	runs := func(what, cmd string) Decision {
		d := a.unanalysable(prog + " " + what + ": the C toolchain runs or loads what it names")
		if cmd != "" {
			d = Max(d, a.forbiddenIn(cmd, depth))
		}
		return d
	}
	switch {
	case strings.HasPrefix(f, "@"):
		return a.unanalysable(prog + " " + f + ": reads its options from a file")
	case !strings.HasPrefix(f, "-"):
		return 0
	case f == "-wrapper":
		return runs(f, strings.ReplaceAll(next(), ",", " "))
	case strings.HasPrefix(f, "-plugin") || strings.HasPrefix(f, "--plugin") ||
		strings.HasPrefix(f, "-load") || strings.HasPrefix(f, "--load-pass-plugin") || f == "-add-plugin":
		// -plugin-opt=PATH names the LTO wrapper the plugin runs; lld's
		// --load-pass-plugin loads a pass plugin into its LTO pipeline.
		if !strings.Contains(f, "=") && !strings.HasPrefix(f, "-plugin-opt") {
			next()
		}
		return runs(f, "")
	case strings.HasPrefix(f, "-fplugin") || strings.HasPrefix(f, "-fpass-plugin"):
		return runs(f, "")
	case strings.HasPrefix(f, "-fuse-ld="):
		if slices.Contains(ccSafeLinkers, f[len("-fuse-ld="):]) {
			return 0
		}
		return runs(f, f[len("-fuse-ld="):])
	case strings.HasPrefix(f, "--ld-path"):
		v, ok := strings.CutPrefix(f, "--ld-path=")
		if !ok {
			v = next()
		}
		return runs("--ld-path", v)
	case f == "-specs" || f == "--specs" || f == "--config" || f == "--prefix":
		next()
		return runs(f, "")
	case strings.HasPrefix(f, "-specs=") || strings.HasPrefix(f, "--specs=") ||
		strings.HasPrefix(f, "--config") || strings.HasPrefix(f, "--prefix="):
		return runs(f, "")
	case strings.HasPrefix(f, "-B") && !ld:
		if f == "-B" {
			next()
		}
		return runs("-B", "")
	case strings.HasPrefix(f, "-Wl,") || strings.HasPrefix(f, "-Wp,") || strings.HasPrefix(f, "-Wa,"):
		// The flags handed on, split at commas, read in turn.
		pieces := strings.Split(f, ",")
		pieces[0] = prog
		d := Decision(0)
		for j := 1; j < len(pieces); j++ {
			d = Max(d, ccFlag(a, prog, pieces, &j, f[2] == 'l', depth))
		}
		return d
	case strings.HasPrefix(f, "-X") && len(f) > 2 || f == "-mllvm":
		// -Xlinker, -Xclang, -Xpreprocessor, -Xarch_x86_64 and the like
		// hand the next argument to another tool, or to the driver.
		one := 1
		return ccFlag(a, prog, []string{prog, next()}, &one, f == "-Xlinker", depth)
	}
	return 0
}

// rustcSafeCodegen are rustc's -C options that run nothing: any other
// (linker, link-arg, linker-flavor, linker-plugin-lto, llvm-args, dlltool,
// ...) may.
var rustcSafeCodegen = []string{"opt-level", "debuginfo", "debug-assertions", "overflow-checks", "target-cpu",
	"target-feature", "lto", "codegen-units", "panic", "incremental", "strip", "prefer-dynamic", "relocation-model",
	"code-model", "embed-bitcode", "metadata", "extra-filename", "rpath", "force-frame-pointers",
	"force-unwind-tables", "split-debuginfo", "instrument-coverage", "link-dead-code", "no-redzone",
	"no-vectorize-loops", "no-vectorize-slp", "relro-level", "profile-generate", "profile-use", "soft-float",
	"symbol-mangling-version", "collapse-macro-debuginfo", "jump-tables", "save-temps", "remark"}

// rustcArgs judges rustc's arguments (execOptions.script): -C linker=PROG
// and -C link-arg(s) name the linker and its flags (read with ccFlag);
// any -C option not of rustcSafeCodegen, any -Z option (-Z
// codegen-backend=SO loads a shared object) and @FILE are unanalysable.
// "rustc -C linker=./x a.rs", "rustc -C link-arg=-wrapper -C
// link-arg=./x a.rs", "rustc @rsp a.rs" and, with RUSTC_BOOTSTRAP=1,
// "rustc -Z codegen-backend=./p.so a.rs" ran them (rustc 1.95) while
// judged allow.
func rustcArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		if !w.static {
			continue
		}
		var kv string
		switch {
		case strings.HasPrefix(v, "@"):
			d = Max(d, a.unanalysable(prog+" "+v+": reads its options from a file"))
			continue
		case strings.HasPrefix(v, "-Z"):
			d = Max(d, a.unanalysable(prog+" -Z: an unstable option may load a codegen backend"))
			continue
		case v == "-C" || v == "--codegen":
			if next := nextWord(ws, &i); next != nil && next.static {
				kv = next.value
			} else {
				d = Max(d, a.unanalysable(prog+" "+v+": a dynamic codegen option"))
				continue
			}
		case strings.HasPrefix(v, "-C"):
			kv = v[2:]
		case strings.HasPrefix(v, "--codegen="):
			kv = v[len("--codegen="):]
		default:
			continue
		}
		key, val, _ := strings.Cut(kv, "=")
		key = strings.ReplaceAll(key, "_", "-")
		switch {
		case slices.Contains(rustcSafeCodegen, key):
		case key == "linker":
			d = Max(d, a.unanalysable(prog+" -C linker runs the program it names"))
			d = Max(d, a.forbiddenIn(val, depth))
		case key == "link-arg" || key == "link-args":
			args := append([]string{prog}, strings.Fields(val)...)
			if key == "link-arg" {
				args = []string{prog, val}
			}
			for j := 1; j < len(args); j++ {
				d = Max(d, ccFlag(a, prog+" -C "+key, args, &j, false, depth))
			}
		default:
			d = Max(d, a.unanalysable(prog+" -C "+key+": may name a program rustc runs"))
		}
	}
	return d
}

// toolchainNames are the toolchain programs known under names with a
// target triple before them or a version after them (gcc-12,
// x86_64-linux-gnu-gcc-12, clang++-14, gcc-ar-12), which no table could
// list.
var toolchainNames = []string{"ar", "c++", "cc", "clang", "clang++", "cpp", "g++", "gcc", "gfortran",
	"ld", "ld.bfd", "ld.gold", "ld.lld", "nm", "ranlib"}

// toolchainExecOptions returns the execOptions of prog when it is a
// toolchain program under a triple or version (toolchainNames), or nil.
func toolchainExecOptions(prog string) *execOptions {
	name := prog
	if j := strings.LastIndexByte(name, '-'); j > 0 && strings.Trim(name[j+1:], "0123456789.") == "" {
		name = name[:j]
	}
	if j := strings.LastIndexByte(name, '-'); j >= 0 {
		name = name[j+1:]
	}
	if name == prog || !slices.Contains(toolchainNames, name) {
		return nil
	}
	return lookupProgram(name).exec
}
