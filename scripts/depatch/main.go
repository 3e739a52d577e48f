// Command depatch writes the dependency modules that gatedexec's build
// patches, with the patches applied, and a go.mod that replaces the
// originals with them, for `go build -modfile`.
//
// Every start of gatedexec runs the package initialisers of everything it
// links, whatever the subcommand. Three dependencies do work there that
// almost no run needs: mvdan.cc/sh/v3/fileutil and cobra compile regular
// expressions, go.starlark.net builds its universe and the method tables
// of its types (needed only to compile a rules file, which a cached start
// never does) and imports compress/gzip (for a profiler gatedexec never
// starts), whose packages build their tables at start-up; and cobra
// builds its hidden completion command on every run, to throw it away
// unless it was called. The patches defer all of it to first use and
// leave the profile uncompressed; nothing gatedexec calls behaves
// differently.
//
// Usage:
//
//	depatch [-o DIR]
//
// It also patches the Go standard library (stdPatches, and the files
// stdFiles adds) through an overlay, for go build -overlay, which leaves
// the toolchain's files alone.
//
// It prints the name of the go.mod to build with (-modfile) on its first
// line, and the overlay's (-overlay) on its second. DIR (by default
// gatedexec-depatch in the user's cache directory) holds one copy of each
// patched module per version and patch set, and one go.mod (with its
// go.sum) per main go.mod and go.sum, each named by a hash of what it
// holds: written once, never changed, so builds of two checkouts at once
// cannot see each other's half-written files. A patch that no longer
// applies (the dependency moved on) fails the build, naming the file and
// the text it looked for.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatedexec/gatedexec/internal/atomicfile"
)

// An edit replaces old, which must occur exactly once in the file, with
// new.
type edit struct{ old, new string }

// after is the edit that adds text right after anchor.
func after(anchor, text string) edit { return edit{anchor, anchor + text} }

// before is the edit that adds text right before anchor.
func before(anchor, text string) edit { return edit{anchor, text + anchor} }

// A patch is the edits of one file of a module.
type patch struct {
	module string
	file   string // slash-separated, in the module
	edits  []edit
}

// patches are gatedexec's; their module versions are go.mod's.
var patches = []patch{
	{"mvdan.cc/sh/v3", "fileutil/file.go", []edit{
		{"import (\n\t\"io/fs\"\n\t\"regexp\"\n\t\"strings\"\n)",
			"import (\n\t\"io/fs\"\n\t\"regexp\"\n\t\"strings\"\n\t\"sync\"\n)"},
		{"\tshebangRe = regexp.MustCompile(`^#![ \\t]*/(usr/)?bin/(env[ \\t]+)?(sh|dash|bash|mksh|bats|zsh)(\\s|$)`)\n",
			"\tshebangRe = sync.OnceValue(func() *regexp.Regexp {\n\t\treturn regexp.MustCompile(`^#![ \\t]*/(usr/)?bin/(env[ \\t]+)?(sh|dash|bash|mksh|bats|zsh)(\\s|$)`)\n\t})\n"},
		{"\textRe     = regexp.MustCompile(`\\.(sh|bash|mksh|bats|zsh)$`)\n",
			"\textRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\.(sh|bash|mksh|bats|zsh)$`) })\n"},
		{"shebangRe.FindSubmatch(", "shebangRe().FindSubmatch("},
		{"extRe.MatchString(", "extRe().MatchString("},
	}},
	{"github.com/spf13/cobra", "completions.go", []edit{
		// cobra's go.mod says go 1.15: no generics, so no sync.OnceValue.
		{"var configEnvVarPrefixSubstRegexp = regexp.MustCompile(`[^A-Z0-9_]`)",
			"var (\n\tconfigEnvVarPrefixSubstOnce sync.Once\n\tconfigEnvVarPrefixSubstRe   *regexp.Regexp\n)\n\n" +
				"func configEnvVarPrefixSubstRegexp() *regexp.Regexp {\n" +
				"\tconfigEnvVarPrefixSubstOnce.Do(func() { configEnvVarPrefixSubstRe = regexp.MustCompile(`[^A-Z0-9_]`) })\n" +
				"\treturn configEnvVarPrefixSubstRe\n}"},
		{"configEnvVarPrefixSubstRegexp.ReplaceAllString(", "configEnvVarPrefixSubstRegexp().ReplaceAllString("},
		// Every Execute built the hidden __complete command (two
		// Sprintfs and a lookup, fmt's first use in `gatedexec version`)
		// and removed it again unless it was the command called, which a
		// shell's completion script always names first.
		after("func (c *Command) initCompleteCmd(args []string) {\n",
			"\tif len(args) == 0 || args[0] != ShellCompRequestCmd && args[0] != ShellCompNoDescRequestCmd {\n"+
				"\t\treturn // patched by gatedexec: not called\n\t}\n"),
	}},
	// Starlark's initialiser built its universe and the method tables
	// of its types (121 allocations, 0.03-0.04 ms of every start);
	// gatedexec only needs them when it compiles a rules file, which a
	// cached start never does. They are made at first use instead: by
	// the resolver's universe lookup, the interpreter's, or a method
	// lookup, every way a program or a value reaches them. The tables
	// are filled in place, so a caller holding one holds the filled one.
	// (Changing Universe before the first evaluation, which gatedexec
	// never does, would be undone by it.)
	{"go.starlark.net", "starlark/library.go", []edit{
		before("\t\"math\"\n\t\"math/big\"\n", "\t\"maps\"\n"),
		{"\t\"strings\"\n\t\"unicode\"\n", "\t\"strings\"\n\t\"sync\"\n\t\"unicode\"\n"},
		{"func init() {\n\t// https://github.com/google/starlark-go/blob/master/doc/spec.md#built-in-constants-and-functions\n",
			"// universeOnce makes Universe and the method tables at first use\n" +
				"// (patched by gatedexec: not at init).\n" +
				"var universeOnce sync.Once\n\n" +
				"func initUniverse() { universeOnce.Do(makeUniverse) }\n\n" +
				"func universeHas(name string) bool {\n\tinitUniverse()\n\treturn Universe.Has(name)\n}\n\n" +
				"func makeUniverse() {\n\t// https://github.com/google/starlark-go/blob/master/doc/spec.md#built-in-constants-and-functions\n"},
		{"\t\t\"zip\":       NewBuiltin(\"zip\", zip),\n\t}\n}\n",
			"\t\t\"zip\":       NewBuiltin(\"zip\", zip),\n\t}\n\tmakeMethods()\n}\n"},
		{"var (\n\tbytesMethods = map[string]*Builtin{\n",
			"var bytesMethods, dictMethods, listMethods, stringMethods, setMethods = map[string]*Builtin{}, map[string]*Builtin{}, map[string]*Builtin{}, map[string]*Builtin{}, map[string]*Builtin{}\n\n" +
				"func makeMethods() {\n\tmaps.Copy(bytesMethods, map[string]*Builtin{\n"},
		{"\t}\n\n\tdictMethods = map[string]*Builtin{\n", "\t})\n\n\tmaps.Copy(dictMethods, map[string]*Builtin{\n"},
		{"\t}\n\n\tlistMethods = map[string]*Builtin{\n", "\t})\n\n\tmaps.Copy(listMethods, map[string]*Builtin{\n"},
		{"\t}\n\n\tstringMethods = map[string]*Builtin{\n", "\t})\n\n\tmaps.Copy(stringMethods, map[string]*Builtin{\n"},
		{"\t}\n\n\tsetMethods = map[string]*Builtin{\n", "\t})\n\n\tmaps.Copy(setMethods, map[string]*Builtin{\n"},
		{"\t}\n)\n\nfunc builtinAttr(recv Value, name string, methods map[string]*Builtin) (Value, error) {\n",
			"\t})\n}\n\nfunc builtinAttr(recv Value, name string, methods map[string]*Builtin) (Value, error) {\n\tinitUniverse()\n"},
		after("func builtinAttrNames(methods map[string]*Builtin) []string {\n", "\tinitUniverse()\n"),
	}},
	{"go.starlark.net", "starlark/eval.go", []edit{
		{"resolve.File(f, isPredeclared, Universe.Has)", "resolve.File(f, isPredeclared, universeHas)"},
		{"resolve.REPLChunk(f, globals.Has, predeclared.Has, Universe.Has)", "resolve.REPLChunk(f, globals.Has, predeclared.Has, universeHas)"},
		{"resolve.ExprOptions(opts, expr, env.Has, Universe.Has)", "resolve.ExprOptions(opts, expr, env.Has, universeHas)"},
	}},
	{"go.starlark.net", "starlark/interp.go", []edit{
		before("\t\t\tstack[sp] = Universe[f.Prog.Names[arg]]\n", "\t\t\tinitUniverse()\n"),
	}},
	{"go.starlark.net", "starlark/profile.go", []edit{
		{"\t\"compress/gzip\"\n", ""},
		{"\tgz := gzip.NewWriter(bufw)\n", "\tgz := uncompressed{bufw} // patched by gatedexec: no compress/gzip\n"},
		{"\tw   io.Writer // *bytes.Buffer or *gzip.Writer\n", "\tw   io.Writer // *bytes.Buffer or uncompressed\n"},
		before("// nanotime returns the time in nanoseconds since process start.",
			"// uncompressed writes a profile as it is: pprof reads a profile\n"+
				"// without gzip too.\ntype uncompressed struct{ io.Writer }\n\nfunc (uncompressed) Close() error { return nil }\n\n"),
	}},
}

// stdPatches are gatedexec's patches of the Go standard library,
// applied through go build's -overlay: the toolchain's own files stay as
// they are. The scheduler's and the cgroup's change only what a program
// with one processor does, which is how gatedexec's entry point
// (internal/oneproc) starts every command and how `run` and `sandbox`
// keep it; a program with more runs that code unchanged. The others
// drop work every start did: CPUIDs asked twice, work left to the moment
// it is needed, which may never come, a check of the binary left to the
// tests of the binary; regexp/syntax's read unicode's and its own class
// maps through the functions stdFiles add, which answer the same.
var stdPatches = []patch{
	{"std", "runtime/proc.go", []edit{
		// gatedexec starts with one processor (internal/oneproc says
		// why): a program linked with -X runtime.oneProcStart=1 sizes
		// its scheduler for one, whatever its CPUs, until GOMAXPROCS is
		// set or sysmon sizes it again. Without the CPU binding
		// oneproc's entry point used for the same end, and its undoing
		// at start (0.05 ms): `version` -0.15 ms, a cached `check` -0.18
		// ms in turns run by run. (run and sandbox keep the binding,
		// which their helper's start gains from.)
		{"\t\tprocs = defaultGOMAXPROCS(numCPUStartup)\n\t}\n",
			"\t\tif oneProcStart != \"\" {\n" +
				"\t\t\tprocs = 1 // patched by gatedexec\n" +
				"\t\t} else {\n\t\t\tprocs = defaultGOMAXPROCS(numCPUStartup)\n\t\t}\n\t}\n"},
		before("// The bootstrap sequence is:\n",
			"// oneProcStart, set by the linker (-X runtime.oneProcStart=1), starts\n"+
				"// the scheduler with one processor (patched by gatedexec).\n"+
				"var oneProcStart string\n\n"),
		// The runtime holds the main goroutine on the main thread while
		// it initialises, and gcenable waits there for the sweeper and
		// the scavenger to start: each wait handed the only processor to
		// a new thread (two of them, 0.07 ms) to run those goroutines and
		// hand it back. With one processor, nothing else can run the main
		// goroutine, so it waits unlocked, on the same thread, and the
		// throw says so should that ever change.
		{"\tgcenable()\n",
			"\tif gomaxprocs == 1 {\n" +
				"\t\t// patched by gatedexec: with one processor, wait for the\n" +
				"\t\t// sweeper and scavenger on this thread, not a new one.\n" +
				"\t\tunlockOSThread()\n\t\tgcenable()\n\t\tlockOSThread()\n" +
				"\t\tif getg().m != &m0 {\n\t\t\tthrow(\"runtime.main left m0 in gcenable\")\n\t\t}\n" +
				"\t} else {\n\t\tgcenable()\n\t}\n"},
		// sysmon woke every 20 µs while the program was busy (the first
		// millisecond at least, and again after every processor it
		// took back) and, with one processor, took it back from every
		// system call of more than a tick, though nothing else could
		// run, for another thread to hand back at the call's return. A
		// sandboxed /bin/true makes a few such calls and lasts 3 ms:
		// it paid 0.45 ms for those ticks on a 2-vCPU VM (in turns run
		// by run; 200 µs: 0.38 ms, 10 ms: 0.52 ms). With one
		// processor, sysmon starts at 1 ms: a call is taken over after
		// 1-2 ms rather than 20-40 µs, and a goroutine stuck behind it
		// waits that long, and sysmon's other work (preempting a
		// goroutine after 10 ms, polling the network after 10 ms) is
		// as before.
		after("\t\tif idle == 0 { // start with 20us sleep...\n\t\t\tdelay = 20\n",
			"\t\t\tif gomaxprocs == 1 {\n"+
				"\t\t\t\tdelay = 1000 // patched by gatedexec: one processor\n"+
				"\t\t\t}\n"),
	}},
	// A CPUID instruction traps to the hypervisor in a VM, and this VM's
	// take 6.7 µs each. The runtime's entry asks for leaves 0 and 1 and
	// keeps part of the answers; internal/cpu asked for both again, and
	// for 0x80000000 twice: 9 CPUIDs at every start, 6 now, internal/cpu
	// taking the entry's answers (amd64; 386's entry keeps none).
	{"std", "runtime/asm_amd64.s", []edit{
		{"\tMOVL\t$0, AX\n\tCPUID\n\tCMPL\tAX, $0\n\tJE\tnocpuinfo\n",
			"\tMOVL\t$0, AX\n\tCPUID\n" +
				"\tMOVL\tAX, internal∕cpu·EntryMaxID(SB) // patched by gatedexec: for internal/cpu\n" +
				"\tCMPL\tAX, $0\n\tJE\tnocpuinfo\n"},
		after("\tMOVL\t$1, AX\n\tCPUID\n\tMOVL\tAX, runtime·processorVersionInfo(SB)\n",
			"\tMOVL\tCX, internal∕cpu·EntryECX1(SB) // patched by gatedexec: for internal/cpu\n"+
				"\tMOVB\t$1, internal∕cpu·EntryCPUID(SB)\n"),
	}},
	{"std", "internal/cpu/cpu_x86.go", []edit{
		after("var maxExtendedFunctionInformation uint32\n",
			"\n"+
				"// The answers to CPUID leaves 0 (EAX) and 1 (ECX), when EntryCPUID\n"+
				"// says the runtime's entry asked for both (patched by gatedexec).\n"+
				"// The runtime's entry writes them (a reference the linker allows\n"+
				"// to what is pushed with go:linkname).\n"+
				"//\n//go:linkname EntryMaxID\n//go:linkname EntryECX1\n//go:linkname EntryCPUID\n"+
				"var (\n\tEntryMaxID, EntryECX1 uint32\n\tEntryCPUID            bool\n)\n"),
		after("package cpu\n", "\nimport _ \"unsafe\" // for go:linkname (patched by gatedexec)\n"),
		{"\tmaxID, _, _, _ := cpuid(0, 0)\n",
			"\tmaxID, ecx1 := EntryMaxID, EntryECX1\n" +
				"\tif !EntryCPUID {\n\t\tmaxID, _, _, _ = cpuid(0, 0)\n\t}\n"},
		{"\t_, _, ecx1, _ := cpuid(1, 0)\n",
			"\tif !EntryCPUID {\n\t\t_, _, ecx1, _ = cpuid(1, 0)\n\t}\n"},
		{"\tmaxExtendedInformation, _, _, _ = cpuid(0x80000000, 0)\n",
			"\tmaxExtendedInformation = maxExtendedFunctionInformation // patched by gatedexec: asked above\n"},
	}},
	// The runtime found its CPU cgroup at every start (reading
	// /proc/self/cgroup and /proc/self/mountinfo, opening the limit's
	// files: 0.07 ms) to lower GOMAXPROCS to a CPU limit. A limit never
	// lowers it below 2, so for a process on one CPU, or started with one
	// processor (oneProcStart), it changes nothing at start: the cgroup
	// is found when a count of more than one CPU is first sized, as
	// sysmon does at its first tick.
	{"std", "runtime/cgroup_linux.go", []edit{
		{"import (\n\t\"internal/runtime/cgroup\"\n)",
			"import (\n\t\"internal/runtime/atomic\"\n\t\"internal/runtime/cgroup\"\n)"},
		after("func defaultGOMAXPROCSInit() {\n",
			"\tif numCPUStartup <= 1 || oneProcStart != \"\" {\n"+
				"\t\t// patched by gatedexec: a limit cannot lower one CPU.\n"+
				"\t\tcgroupDeferred.Store(true)\n\t\treturn\n\t}\n"+
				"\topenCgroupCPU()\n}\n\n"+
				"// cgroupDeferred says the cgroup is to be found at the first\n"+
				"// defaultGOMAXPROCS of more than one CPU (patched by gatedexec).\n"+
				"var (\n\tcgroupDeferred  atomic.Bool\n\tcgroupDeferLock mutex\n)\n\n"+
				"func openCgroupCPU() {\n"),
		before("\tif !cgroupOK {\n\t\t// No cgroup",
			"\tif procs <= 1 {\n\t\treturn procs // a limit is at least 2\n\t}\n"+
				"\tif cgroupDeferred.Load() {\n\t\tlock(&cgroupDeferLock)\n"+
				"\t\tif cgroupDeferred.Load() {\n\t\t\topenCgroupCPU()\n\t\t\tcgroupDeferred.Store(false)\n\t\t}\n"+
				"\t\tunlock(&cgroupDeferLock)\n\t}\n"),
	}},
	// A program without cgo, which cannot load a plugin, assembles the
	// pointer masks of its data and bss (expanded from the linker's GC
	// programs: 0.011 ms of gatedexec's start) when its first
	// collection starts, before any write barrier or root scan reads
	// them; no run, check or version of gatedexec collects.
	{"std", "runtime/symtab.go", []edit{
		{"\t\tif md.gcdatamask == (bitvector{}) {\n\t\t\tscanDataSize := md.edata - md.data\n" +
			"\t\t\tmd.gcdatamask = progToPointerMask((*byte)(unsafe.Pointer(md.gcdata)), scanDataSize)\n" +
			"\t\t\tscanBSSSize := md.ebss - md.bss\n" +
			"\t\t\tmd.gcbssmask = progToPointerMask((*byte)(unsafe.Pointer(md.gcbss)), scanBSSSize)\n",
			"\t\tif md.gcdatamask == (bitvector{}) {\n\t\t\tscanDataSize := md.edata - md.data\n" +
				"\t\t\tscanBSSSize := md.ebss - md.bss\n" +
				"\t\t\tif iscgo {\n\t\t\t\tmd.gcdatamask, md.gcbssmask = pointerMasks(md)\n" +
				"\t\t\t} else {\n\t\t\t\tmoduleMasksDeferred = true // patched by gatedexec\n\t\t\t}\n"},
		before("// modulesinit creates the active modules slice out of all loaded modules.\n",
			"// moduleMasksDeferred says modulesinit left the pointer masks of the\n"+
				"// modules' data and bss to assembleModuleMasks (patched by gatedexec).\n"+
				"var moduleMasksDeferred bool\n\n"+
				"// assembleModuleMasks assembles the masks modulesinit left. Its\n"+
				"// caller holds work.startSema.\n"+
				"func assembleModuleMasks() {\n\tif !moduleMasksDeferred {\n\t\treturn\n\t}\n"+
				"\tfor _, md := range activeModules() {\n\t\tmd.gcdatamask, md.gcbssmask = pointerMasks(md)\n\t}\n"+
				"\tmoduleMasksDeferred = false\n}\n\n"+
				"// pointerMasks returns md's data and bss pointer masks: those\n"+
				"// assembled, or else expanded from its GC programs now.\n"+
				"func pointerMasks(md *moduledata) (data, bss bitvector) {\n"+
				"\tif md.gcdatamask != (bitvector{}) {\n\t\treturn md.gcdatamask, md.gcbssmask\n\t}\n"+
				"\treturn progToPointerMask((*byte)(unsafe.Pointer(md.gcdata)), md.edata-md.data),\n"+
				"\t\tprogToPointerMask((*byte)(unsafe.Pointer(md.gcbss)), md.ebss-md.bss)\n}\n\n"),
	}},
	// moduledataverify1 read the whole function table at every start
	// (0.014 ms of gatedexec's: its 20 000 entries) to throw should the
	// linker ever write it out of order. That is a property of the
	// binary, not of the start: gatedexec's test suite checks its own
	// (test/functab_test.go), and the table of a plugin, loaded at run
	// time, is still checked as it loads.
	{"std", "runtime/symtab.go", []edit{
		{"\tnftab := len(datap.ftab) - 1\n\tfor i := 0; i < nftab; i++ {\n",
			"\tnftab := len(datap.ftab) - 1\n\tfor i := 0; i < nftab && datap.pluginpath != \"\"; i++ { // patched by gatedexec\n"},
	}},
	{"std", "runtime/mgc.go", []edit{
		after("\tsemacquire(&work.startSema)\n\t// Re-check transition condition under transition lock.\n\tif !trigger.test() {\n\t\tsemrelease(&work.startSema)\n\t\treturn\n\t}\n", "\tassembleModuleMasks() // patched by gatedexec\n"),
	}},
	// pointerMask, for the runtime's tests, runs on the system stack,
	// where it cannot wait for work.startSema: it expands masks not
	// assembled yet for itself.
	{"std", "runtime/mbitmap.go", []edit{
		{"\t\t\tbitmap := datap.gcdatamask.bytedata\n",
			"\t\t\tdata, _ := pointerMasks(datap) // patched by gatedexec\n\t\t\tbitmap := data.bytedata\n"},
		{"\t\t\tbitmap := datap.gcbssmask.bytedata\n",
			"\t\t\t_, bss := pointerMasks(datap) // patched by gatedexec\n\t\t\tbitmap := bss.bytedata\n"},
	}},
	{"std", "runtime/heapdump.go", []edit{
		after("func runtime_debug_WriteHeapDump(fd uintptr) {\n", "\tsemacquire(&work.startSema) // patched by gatedexec\n\tassembleModuleMasks()\n\tsemrelease(&work.startSema)\n\taddDeferredItabs()\n"),
	}},
	// Every heap page a start touches first faults (a trap to the
	// hypervisor and back in a VM, besides the zeroing), each span of
	// 8 KB at its first object, many twice (read, then written): 97
	// faults within the first 470 KB of a `gatedexec version`, 76
	// within 380 KB of an empty program's start. A program started with
	// one processor populates the first 384 KB its heap hands out with
	// madvise(MADV_POPULATE_WRITE): at its first growth, and at the next
	// for what lies past the first's end (the heap's first page is at a
	// random offset into it, within 384 KB of the end in 9% of starts,
	// which then went on faulting page by page): page faults
	// 196 -> 99 for `version`; in turns run by run, `version` -0.029 ms,
	// the empty program -0.020, a sandboxed /bin/true -0.018 (512 KB
	// zeroed more than an empty program touches: +0.010 for it). A
	// kernel without MADV_POPULATE_WRITE (before 5.14) refuses it and
	// nothing changes.
	{"std", "runtime/mheap.go", []edit{
		before("\tif firstGrow && randomizeHeapBase {\n\t\t// The top heapAddrBits-log2(pallocChunkBytes) bits are now randomized,\n",
			"\tfirst := v // patched by gatedexec: the first page the heap hands out\n"),
		{"\t\t\th.pages.markRandomPaddingPages(v, randNumPages)\n\t\t}\n\t}\n\n\treturn totalGrowth, true\n",
			"\t\t\th.pages.markRandomPaddingPages(v, randNumPages)\n\t\t}\n" +
				"\t\tfirst += randNumPages * pageSize // patched by gatedexec\n\t}\n" +
				"\tif oneProcStart != \"\" && GOOS == \"linux\" {\n" +
				"\t\t// patched by gatedexec: populate what the start touches,\n" +
				"\t\t// here and, past this growth's end, in the next.\n" +
				"\t\tif firstGrow {\n\t\t\tprefaultAt, prefaultLeft = first, heapPrefault\n\t\t}\n" +
				"\t\tif prefaultLeft > 0 && (prefaultAt < v || prefaultAt >= nBase) {\n" +
				"\t\t\tprefaultLeft = 0 // the heap went on elsewhere\n" +
				"\t\t} else if prefaultLeft > 0 {\n" +
				"\t\t\tn := min(prefaultLeft, nBase-prefaultAt)\n" +
				"\t\t\tmadvise(unsafe.Pointer(prefaultAt), n, madvPopulateWrite)\n" +
				"\t\t\tprefaultAt, prefaultLeft = prefaultAt+n, prefaultLeft-n\n\t\t}\n\t}\n\n" +
				"\treturn totalGrowth, true\n"},
		before("// Try to add at least npage pages of memory to the heap,\n",
			"// heapPrefault is how much of its heap a program started with one\n"+
				"// processor populates from the first page its first growth hands\n"+
				"// out, and madvPopulateWrite Linux's MADV_POPULATE_WRITE; what is\n"+
				"// left of it past a growth's end is prefaultLeft, from prefaultAt,\n"+
				"// written with h.lock held (patched by gatedexec).\n"+
				"const (\n\theapPrefault      = 384 << 10\n\tmadvPopulateWrite = 23\n)\n\n"+
				"var prefaultAt, prefaultLeft uintptr\n\n"),
	}},
	// A program without cgo adds the linker's itabs to the itab table at
	// the first lookup that misses it, not at start (0.01 ms of
	// gatedexec's: 473 itabs, each reading two type descriptors), and
	// sizes the table for them once, instead of outgrowing its 512
	// slots and adding every itab again. Only getitab reads the table
	// (every dynamic conversion to an interface, and reflect's), and
	// it adds them before its first locked lookup, so an itab the
	// linker made is still the only one for its pair, as interface
	// comparison needs; `version` makes no such lookup.
	{"std", "runtime/iface.go", []edit{
		{"func itabsinit() {\n\tlockInit(&itabLock, lockRankItab)\n\tlock(&itabLock)\n" +
			"\tfor _, md := range activeModules() {\n\t\tfor _, i := range md.itablinks {\n\t\t\titabAdd(i)\n\t\t}\n\t}\n" +
			"\tunlock(&itabLock)\n}\n",
			"func itabsinit() {\n\tlockInit(&itabLock, lockRankItab)\n" +
				"\tif !iscgo {\n\t\titabsDeferred = true // patched by gatedexec\n\t\treturn\n\t}\n" +
				"\tlock(&itabLock)\n\taddLinkerItabs()\n\tunlock(&itabLock)\n}\n\n" +
				"// itabsDeferred says itabsinit left the linker's itabs to the first\n" +
				"// getitab that misses the table (patched by gatedexec). It is\n" +
				"// written with itabLock held.\n" +
				"var itabsDeferred bool\n\n" +
				"// addDeferredItabs adds the itabs itabsinit left.\n" +
				"func addDeferredItabs() {\n\tlock(&itabLock)\n\tif itabsDeferred {\n\t\taddLinkerItabs()\n\t}\n\tunlock(&itabLock)\n}\n\n" +
				"// addLinkerItabs adds the linker's itabs to the table, still empty,\n" +
				"// sized for them once. Its caller holds itabLock.\n" +
				"func addLinkerItabs() {\n\titabsDeferred = false\n" +
				"\tn := uintptr(0)\n\tfor _, md := range activeModules() {\n\t\tn += uintptr(len(md.itablinks))\n\t}\n" +
				"\tif size := itabTable.size; n >= 3*(size/4) {\n" +
				"\t\tfor n >= 3*(size/4) {\n\t\t\tsize *= 2\n\t\t}\n" +
				"\t\tt := (*itabTableType)(mallocgc((2+size)*goarch.PtrSize, nil, true))\n" +
				"\t\tt.size = size\n" +
				"\t\tatomicstorep(unsafe.Pointer(&itabTable), unsafe.Pointer(t))\n\t}\n" +
				"\tfor _, md := range activeModules() {\n\t\tfor _, i := range md.itablinks {\n\t\t\titabAdd(i)\n\t\t}\n\t}\n}\n"},
		after("\t// Not found.  Grab the lock and try again.\n\tlock(&itabLock)\n",
			"\tif itabsDeferred {\n\t\taddLinkerItabs() // patched by gatedexec\n\t}\n"),
	}},
	{"std", "regexp/syntax/parse.go", []edit{
		{"\tg := perlGroup[s[0:2]]\n", "\tg := lookupPerlGroup(s[0:2])\n"},
		{"\tg := posixGroup[name]\n", "\tg := lookupPosixGroup(name)\n"},
		{"\tfor name, actual := range unicode.CategoryAliases {\n", "\tfor name, actual := range unicode.RangeCategoryAliases {\n"},
		{"\t\treturn unicode.Categories[\"LC\"], unicode.FoldCategory[\"LC\"], +1\n",
			"\t\treturn unicode.LookupCategories(\"LC\"), unicode.LookupFoldCategory(\"LC\"), +1\n"},
		{"\tif t := unicode.Categories[name]; t != nil {\n\t\treturn t, unicode.FoldCategory[name], +1\n",
			"\tif t := unicode.LookupCategories(name); t != nil {\n\t\treturn t, unicode.LookupFoldCategory(name), +1\n"},
		{"\tif t := unicode.Scripts[name]; t != nil {\n\t\treturn t, unicode.FoldScript[name], +1\n",
			"\tif t := unicode.LookupScripts(name); t != nil {\n\t\treturn t, unicode.LookupFoldScript(name), +1\n"},
		{"\t\tt := unicode.Categories[actual]\n\t\treturn t, unicode.FoldCategory[actual], +1\n",
			"\t\tt := unicode.LookupCategories(actual)\n\t\treturn t, unicode.LookupFoldCategory(actual), +1\n"},
	}},
}

// stdFiles are the files gatedexec's build adds to the standard library
// (stdFile says why), which regexp/syntax's patch calls.
var stdFiles = []stdFile{
	{"unicode/tables.go", "unicode/tables_gatedexec.go", []mapFunc{
		{"Categories", "LookupCategories", ""},
		{"FoldCategory", "LookupFoldCategory", ""},
		{"Scripts", "LookupScripts", ""},
		{"FoldScript", "LookupFoldScript", ""},
		{"CategoryAliases", "", "RangeCategoryAliases"},
	}},
	{"regexp/syntax/perl_groups.go", "regexp/syntax/perl_groups_gatedexec.go", []mapFunc{
		{"perlGroup", "lookupPerlGroup", ""},
		{"posixGroup", "lookupPosixGroup", ""},
	}},
}

func main() {
	out := flag.String("o", "", "directory for the patched modules and go.mod (default: the user cache directory's gatedexec-depatch)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: depatch [-o DIR]")
		os.Exit(64)
	}
	if *out == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "depatch:", err)
			os.Exit(1)
		}
		*out = filepath.Join(dir, "gatedexec-depatch")
	}
	// The names printed are used from other directories.
	dir, err := filepath.Abs(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "depatch:", err)
		os.Exit(1)
	}
	modfile, err := run(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "depatch:", err)
		os.Exit(1)
	}
	overlay, err := overlayStd(dir)
	var na *notApplied
	if errors.As(err, &na) {
		// Only slower to start: make build and make demo still work
		// with another Go; TestOverlayStd fails there.
		fmt.Fprintf(os.Stderr, "depatch: %v; building with the Go standard library unpatched\n", err)
		overlay, err = writeOverlay(dir, map[string]string{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "depatch:", err)
		os.Exit(1)
	}
	fmt.Println(modfile)
	fmt.Println(overlay)
}

// module is what `go mod download -json` says of a required module.
type module struct {
	Path, Version, Dir string
}

// listModule returns the main module's version of path, in the module
// cache: go mod download fetches it when it is not there yet.
func listModule(path string) (module, error) {
	var m module
	b, err := exec.Command("go", "mod", "download", "-json", path).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return m, fmt.Errorf("go mod download %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Dir == "" {
		return m, fmt.Errorf("go mod download %s: no module directory in %q (%v)", path, b, err)
	}
	return m, nil
}

// run makes sure out, an absolute directory, holds the patched modules
// and a go.mod replacing them for the main module in the working
// directory, and returns that go.mod's name.
func run(out string) (string, error) {
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		return "", err
	}
	gosum, err := os.ReadFile("go.sum")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	var mod bytes.Buffer
	mod.Write(gomod)
	mod.WriteString("\n// Written by scripts/depatch: the patched copies of these modules.\n")
	for _, path := range modules() {
		m, err := listModule(path)
		if err != nil {
			return "", err
		}
		dir, err := patchedCopy(out, m)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&mod, "replace %s => %s\n", path, dir)
	}
	base := filepath.Join(out, "go-"+hash(mod.Bytes(), gosum))
	// go finds the go.sum of -modfile X.mod at X.sum; it goes first, so
	// that a go.mod in place always has its go.sum.
	if err := writeOnce(base+".sum", gosum); err != nil {
		return "", err
	}
	if err := writeOnce(base+".mod", mod.Bytes()); err != nil {
		return "", err
	}
	return base + ".mod", nil
}

// modules returns the patched modules, each once, in the order patches
// names them.
func modules() []string {
	var paths []string
	for _, p := range patches {
		if !slices.Contains(paths, p.module) {
			paths = append(paths, p.module)
		}
	}
	return paths
}

// patchedCopy returns the directory in out holding m with its patches
// applied, making it when it is not there yet.
func patchedCopy(out string, m module) (string, error) {
	dir := filepath.Join(out, strings.ReplaceAll(m.Path, "/", "_")+"@"+m.Version+"-"+editsHash(patches, m.Path))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(out, ".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(m.Dir, tmp); err != nil {
		return "", fmt.Errorf("%s@%s: %w", m.Path, m.Version, err)
	}
	for _, p := range patches {
		if p.module == m.Path {
			if err := apply(tmp, p); err != nil {
				return "", fmt.Errorf("%s@%s %s: %w (update scripts/depatch for this version)", m.Path, m.Version, p.file, err)
			}
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return dir, nil // another build made it first
		}
		return "", err
	}
	return dir, nil
}

// editsHash returns a hex hash of the edits ps make to module's files,
// for a directory name.
func editsHash(ps []patch, module string, more ...string) string {
	h := sha256.New()
	for _, s := range more {
		fmt.Fprintf(h, "%q\n", s)
	}
	for _, p := range ps {
		if p.module == module {
			fmt.Fprintf(h, "%q\n", p.file)
			for _, e := range p.edits {
				fmt.Fprintf(h, "%q %q\n", e.old, e.new)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// overlayStd makes sure out, an absolute directory, holds the standard
// library's files that stdPatches patch, patched, and those stdFiles
// add, and a go build -overlay file putting them in place (GOROOT is
// left alone), and returns that file's name.
func overlayStd(out string) (string, error) {
	b, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT GOVERSION: %w", err)
	}
	goroot, version, ok := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if !ok || !filepath.IsAbs(goroot) {
		return "", fmt.Errorf("go env GOROOT GOVERSION: unexpected %q", b)
	}
	return overlayFor(out, goroot, version)
}

// A notApplied error says the standard library's patches do not all
// apply to the toolchain at hand; none is then applied (the patches of
// runtime/asm_amd64.s and internal/cpu need each other, regexp/syntax's
// the files stdFiles add).
type notApplied struct{ err error }

func (e *notApplied) Error() string { return e.err.Error() }
func (e *notApplied) Unwrap() error { return e.err }

// overlayFor is overlayStd for the toolchain at goroot, version.
func overlayFor(out, goroot, version string) (string, error) {
	src := filepath.Join(goroot, "src")
	dir := filepath.Join(out, "std@"+version+"-"+editsHash(stdPatches, "std", append([]string{goroot, lookupGenerator}, stdFileNames()...)...))
	if _, err := os.Stat(dir); err != nil {
		if err := patchStd(out, src, dir); err != nil {
			return "", &notApplied{fmt.Errorf("%s (%s): %w (update scripts/depatch for this version)", goroot, version, err)}
		}
	}
	replace := map[string]string{}
	for _, file := range stdFileNames() {
		file = filepath.FromSlash(file)
		replace[filepath.Join(src, file)] = filepath.Join(dir, file)
	}
	return writeOverlay(out, replace)
}

// writeOverlay writes a go build -overlay file replacing each key of
// replace with its value into out, and returns its name.
func writeOverlay(out string, replace map[string]string) (string, error) {
	j, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	name := filepath.Join(out, "overlay-"+hash(j)+".json")
	return name, writeOnce(name, j)
}

// stdFileNames returns the names, slash-separated under GOROOT/src, of
// the files the overlay puts in place: those stdPatches patch, each once,
// and those stdFiles add.
func stdFileNames() []string {
	var names []string
	for _, p := range stdPatches {
		if !slices.Contains(names, p.file) {
			names = append(names, p.file)
		}
	}
	for _, f := range stdFiles {
		names = append(names, f.file)
	}
	return names
}

// patchStd writes dir: the files of src that stdPatches patch, patched,
// and those stdFiles add.
func patchStd(out, src, dir string) error {
	tmp, err := os.MkdirTemp(out, ".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, p := range stdPatches {
		file := filepath.FromSlash(p.file)
		if _, err := os.Stat(filepath.Join(tmp, file)); err != nil { // not copied for an earlier patch
			b, err := os.ReadFile(filepath.Join(src, file))
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, file)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(tmp, file), b, 0o644); err != nil {
				return err
			}
		}
		if err := apply(tmp, p); err != nil {
			return fmt.Errorf("%s: %w", p.file, err)
		}
	}
	if err := writeLookups(src, tmp, stdFiles); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return nil // another build made it first
		}
		return err
	}
	return nil
}

// apply makes p's edits to its file under dir.
func apply(dir string, p patch) error {
	name := filepath.Join(dir, filepath.FromSlash(p.file))
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	s := string(b)
	for _, e := range p.edits {
		if n := strings.Count(s, e.old); n != 1 {
			return fmt.Errorf("%q occurs %d times, want once", e.old, n)
		}
		s = strings.Replace(s, e.old, e.new, 1)
	}
	return os.WriteFile(name, []byte(s), 0o644)
}

// copyTree copies the regular files and directories of src (a module in
// the read-only module cache, which holds nothing else) into dst,
// writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o644)
		}
		return nil
	})
}

// hash returns a hex hash of parts, for a file name.
func hash(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d\n", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// writeOnce writes data to name unless it is there: a name says what the
// file holds, so one that exists is already right.
func writeOnce(name string, data []byte) error {
	if _, err := os.Stat(name); err == nil {
		return nil
	}
	return atomicfile.Write(name, data, false)
}
