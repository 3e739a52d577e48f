package main

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/oneproc"
)

// TestRun: every patch applies to go.mod's version of its module; the
// go.mod written replaces each patched module with its patched copy; a
// second run finds everything in place and rewrites nothing.
func TestRun(t *testing.T) {
	t.Chdir("../..")
	out := t.TempDir()
	modfile, err := run(out)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(modfile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(strings.TrimSuffix(modfile, ".mod") + ".sum"); err != nil {
		t.Errorf("no go.sum beside %s: %v", modfile, err)
	}
	for _, p := range patches {
		var dir string
		for _, line := range strings.Split(string(mod), "\n") {
			if rest, ok := strings.CutPrefix(line, "replace "+p.module+" => "); ok {
				dir = rest
			}
		}
		if dir == "" {
			t.Fatalf("%s is not replaced in\n%s", p.module, mod)
		}
		checkEdits(t, filepath.Join(dir, filepath.FromSlash(p.file)), p)
	}
	before := modTimes(t, out)
	again, err := run(out)
	if err != nil || again != modfile {
		t.Fatalf("second run: %s, %v; first %s", again, err, modfile)
	}
	if after := modTimes(t, out); !maps.Equal(before, after) {
		t.Errorf("the second run rewrote files: %v, then %v", before, after)
	}
}

// TestApplyRefuses: an edit whose text is missing or occurs twice fails,
// naming how often it occurs, and leaves the file as it was.
func TestApplyRefuses(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f.go")
	const src = "a b a\n"
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for old, want := range map[string]string{"c": "occurs 0 times", "a": "occurs 2 times"} {
		err := apply(dir, patch{"m", "f.go", []edit{{"b", "B"}, {old, "x"}}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("edit of %q: %v, want %q", old, err, want)
		}
		if b, _ := os.ReadFile(name); string(b) != src {
			t.Errorf("the file became %q", b)
		}
	}
}

// checkEdits checks that the file name has every edit of p made: each
// new text is in it, and each old one is gone (unless the new one holds
// it).
func checkEdits(t *testing.T, name string, p patch) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.edits {
		if e.new != "" && !strings.Contains(string(b), e.new) {
			t.Errorf("%s %s (%s) lacks %q", p.module, p.file, name, e.new)
		}
		if !strings.Contains(e.new, e.old) && strings.Contains(string(b), e.old) {
			t.Errorf("%s %s (%s) still has %q", p.module, p.file, name, e.old)
		}
	}
}

func modTimes(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = info.ModTime().UnixNano()
	}
	return m
}

// TestOverlayStd: the overlay puts a patched copy in place of each
// standard library file stdPatches names, with every edit made, and adds
// each file stdFiles names, with its functions; a second call rewrites
// nothing.
func TestOverlayStd(t *testing.T) {
	out := t.TempDir()
	overlay, err := overlayStd(out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(overlay)
	if err != nil {
		t.Fatal(err)
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", overlay, err)
	}
	if want := len(stdFileNames()); len(o.Replace) != want {
		t.Errorf("%s replaces %d files, want %d", overlay, len(o.Replace), want)
	}
	replaced := func(file string) string {
		for from, to := range o.Replace {
			if strings.HasSuffix(from, string(filepath.Separator)+filepath.Join("src", filepath.FromSlash(file))) {
				return to
			}
		}
		t.Fatalf("%s replaces no %s", overlay, file)
		return ""
	}
	for _, p := range stdPatches {
		checkEdits(t, replaced(p.file), p)
	}
	for _, f := range stdFiles {
		b, err := os.ReadFile(replaced(f.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range f.maps {
			for _, fn := range []string{m.lookup, m.each} {
				if fn != "" && !strings.Contains(string(b), "\nfunc "+fn+"(") {
					t.Errorf("%s declares no %s", f.file, fn)
				}
			}
		}
	}
	before := modTimes(t, out)
	if again, err := overlayStd(out); err != nil || again != overlay {
		t.Fatalf("second call: %s, %v; first %s", again, err, overlay)
	}
	if after := modTimes(t, out); !maps.Equal(before, after) {
		t.Errorf("the second call rewrote files: %v, then %v", before, after)
	}
}

// TestOverlayForOtherGo: patches that do not apply to a toolchain (here
// one whose runtime/proc.go lacks their text) are a notApplied error, and
// leave nothing behind.
func TestOverlayForOtherGo(t *testing.T) {
	goroot, out := t.TempDir(), t.TempDir()
	for _, p := range stdPatches {
		name := filepath.Join(goroot, "src", filepath.FromSlash(p.file))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("package runtime\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	overlay, err := overlayFor(out, goroot, "go0.0")
	var na *notApplied
	if !errors.As(err, &na) || overlay != "" {
		t.Fatalf("overlayFor: %q, %v; want a notApplied error", overlay, err)
	}
	if !strings.Contains(err.Error(), "occurs 0 times") || !strings.Contains(err.Error(), "go0.0") {
		t.Errorf("error %q does not say which text is missing where", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("left %v in %s", entries, out)
	}
}

// TestRuntimePatches: a program started through gatedexec's entry point
// and built with the overlay has no thread at main but its own and
// sysmon (built without it, one or two more: those the runtime's
// initialisation handed its processor to), holds none of its CPU
// cgroup's files until GOMAXPROCS is sized for more than one CPU, and
// then holds the same files and gets the same GOMAXPROCS as the
// unpatched runtime; with its one processor, sysmon leaves it to a
// system call of 0.3 ms and takes it over from one of 5 ms; and
// internal/cpu, taking the answers of the entry's CPUIDs, finds the same
// CPU features; a collection keeps every heap object only data and
// bss point to (their pointer masks, no longer assembled at start, are
// when it starts); and a conversion to an interface at run time finds the
// linker's itab for its pair (no longer added at start, they are at the
// first lookup); and the first 384 KB the heap hands out are resident at
// main, populated at once.
func TestRuntimePatches(t *testing.T) {
	if oneproc.EntrySymbol == "" {
		t.Skip("the patches change only a start through the entry point, which this platform has not")
	}
	overlay, err := overlayStd(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// start builds the program and runs it five times: sysmon sizes
	// GOMAXPROCS at its first tick, which can come after oneproc gave
	// the CPUs back, and starts a thread for it (GODEBUG keeps it from
	// that), and a slow start may have sysmon take over a system call
	// early: of the threads the fewest are kept, of threads-long the
	// most, of the rest the first run's.
	start := func(name string, flags ...string) map[string]string {
		bin := buildProgram(t, name, "./testdata/start", append(flags, "-ldflags=-E "+oneproc.EntrySymbol+" "+oneproc.RuntimeFlag)...)
		var got map[string]string
		for range 5 {
			run := exec.Command(bin)
			run.Env = append(os.Environ(), "GODEBUG=updatemaxprocs=0")
			out, err := run.Output()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			this := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				k, v, _ := strings.Cut(l, " ")
				this[k] = v
			}
			if got == nil {
				got = this
				continue
			}
			for _, k := range []string{"threads", "threads-short"} {
				got[k] = strconv.Itoa(min(atoi(t, got[k]), atoi(t, this[k])))
			}
			got["threads-long"] = strconv.Itoa(max(atoi(t, got["threads-long"]), atoi(t, this["threads-long"])))
		}
		return got
	}
	patched, plain := start("patched", "-overlay="+overlay), start("plain")
	if patched["threads"] != "2" {
		t.Errorf("patched: %s threads at main, want 2 (main and sysmon)", patched["threads"])
	}
	if p, q := atoi(t, patched["threads"]), atoi(t, plain["threads"]); p >= q {
		t.Errorf("threads at main: %d patched, %d plain; want fewer patched", p, q)
	}
	if patched["threads-short"] != patched["threads"] {
		t.Errorf("patched: %s threads after a system call of 0.3 ms, %s before: sysmon took the processor over", patched["threads-short"], patched["threads"])
	}
	if atoi(t, patched["threads-long"]) <= atoi(t, patched["threads-short"]) {
		t.Errorf("patched: %s threads after a system call of 5 ms: sysmon never took the processor over", patched["threads-long"])
	}
	if patched["cpu"] != plain["cpu"] {
		t.Errorf("internal/cpu's features: patched %s, plain %s", patched["cpu"], plain["cpu"])
	}
	if patched["gc-roots"] != "16/16" || plain["gc-roots"] != "16/16" {
		t.Errorf("objects only data and bss point to, kept by a collection: patched %s, plain %s; want 16/16",
			patched["gc-roots"], plain["gc-roots"])
	}
	if patched["itabs"] != "true,true,true" || plain["itabs"] != "true,true,true" {
		t.Errorf("conversions to an interface at run time (the linker's itab, one made then, none): patched %s, plain %s; want true,true,true",
			patched["itabs"], plain["itabs"])
	}
	// The heap's first 384 KB populated at once (heapPrefault): 96 pages
	// resident in a row, where pages touched one by one leave holes.
	if run := atoi(t, patched["heap-run"]); run < 96 {
		if populateWrite() {
			t.Errorf("patched: %d of the heap's first pages resident in a row at main, want 96 (populated at once)", run)
		} else {
			t.Logf("patched: %d of the heap's first pages resident in a row: this kernel has no MADV_POPULATE_WRITE (Linux 5.14)", run)
		}
	}
	if patched["cgroup"] != "" {
		t.Errorf("patched: the runtime opened %s at start", patched["cgroup"])
	}
	if patched["cgroup-after"] != plain["cgroup"] || patched["gomaxprocs"] != plain["gomaxprocs"] {
		t.Errorf("sized for all CPUs: patched holds %q with GOMAXPROCS %s, plain %q (at start) with %s",
			patched["cgroup-after"], patched["gomaxprocs"], plain["cgroup"], plain["gomaxprocs"])
	}
}

// populateWrite reports whether the kernel populates a mapping on
// madvise(MADV_POPULATE_WRITE), as the patched runtime asks it to.
func populateWrite() bool {
	m, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return false
	}
	defer unix.Munmap(m)
	return unix.Madvise(m, 23) == nil // Linux's MADV_POPULATE_WRITE, which x/sys names on Linux alone
}

// buildProgram builds the package pkg with the go build flags into a
// temporary directory, as name, and returns the binary's path.
func buildProgram(t *testing.T, name, pkg string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	args := append(append([]string{"build"}, flags...), "-o", bin, pkg)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go %q: %v\n%s", args, err, out)
	}
	return bin
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStdLookups: regexp/syntax, reading unicode's and its own class maps
// through the functions stdFiles add, makes the same of every class a
// pattern can name (or fails the same way) as the toolchain's, and a
// program linking regexp no longer builds the maps at its start.
func TestStdLookups(t *testing.T) {
	overlay, err := overlayStd(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	output := func(bin string, args ...string) string {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		return string(out)
	}
	patched := output(buildProgram(t, "classes-patched", "./testdata/classes", "-overlay="+overlay))
	plain := output(buildProgram(t, "classes-plain", "./testdata/classes"))
	if patched != plain {
		p, q := strings.Split(patched, "\n"), strings.Split(plain, "\n")
		for i := range min(len(p), len(q)) {
			if p[i] != q[i] {
				t.Fatalf("line %d: patched %.200q, plain %.200q", i+1, p[i], q[i])
			}
		}
		t.Fatalf("patched prints %d lines, plain %d", len(p), len(q))
	}
	if n := strings.Count(plain, "\n"); n < 800 || !strings.Contains(plain, `\p{Greek} [`) || !strings.Contains(plain, `[[:alpha:]] [A-Za-z]`) {
		t.Fatalf("the classes program printed %d lines, not every class:\n%.500s", n, plain)
	}
	mapInits := func(bin string) []string {
		out, err := exec.Command("go", "tool", "nm", bin).Output()
		if err != nil {
			t.Fatalf("go tool nm %s: %v", bin, err)
		}
		var inits []string
		for _, f := range strings.Fields(string(out)) {
			if strings.HasPrefix(f, "unicode.map.init") || strings.HasPrefix(f, "regexp/syntax.map.init") {
				inits = append(inits, f)
			}
		}
		return inits
	}
	bin := buildProgram(t, "regexp-patched", "./testdata/regexp", "-overlay="+overlay)
	if got := output(bin, `^\p{Greek}+\d[[:alpha:]]$`, "αβ7x"); got != "match\n" {
		t.Errorf("patched regexp: %q, want a match", got)
	}
	if inits := mapInits(bin); len(inits) != 0 {
		t.Errorf("a program linking regexp, built with the overlay, still builds maps at start: %v", inits)
	}
	if inits := mapInits(buildProgram(t, "regexp-plain", "./testdata/regexp")); len(inits) == 0 {
		t.Errorf("built without the overlay, it builds no map at start: the check above proves nothing")
	}
}
