package execpolicy

import (
	"fmt"
	"maps"
	"path"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// checkSorted reports a row of t out of order or named twice: either
// breaks the binary search of lookup.
func checkSorted[T any](t *testing.T, table string, tab nameTable[T]) {
	t.Helper()
	for i := 1; i < len(tab); i++ {
		if tab[i-1].name >= tab[i].name {
			t.Errorf("%s: %q before %q: the table must be sorted by name, each name once", table, tab[i-1].name, tab[i].name)
		}
	}
	for _, r := range tab {
		if _, ok := tab.lookup(r.name); !ok {
			t.Errorf("%s: lookup(%q) finds nothing", table, r.name)
		}
	}
}

func TestNameTablesSorted(t *testing.T) {
	checkSorted(t, "wrappers", wrappers)
	checkSorted(t, "dangerIndex", dangerIndex)
	checkSorted(t, "knownSafeList", knownSafeList)
	checkSorted(t, "shellBuiltins", shellBuiltins)
	checkSorted(t, "bashNames", bashNames)
	checkSorted(t, "programExecOptions", programExecOptions)
	checkSorted(t, "gitSubcommandExecOptions", gitSubcommandExecOptions)
	checkSorted(t, "subcommandDepth", subcommandDepth)
	checkSorted(t, "sqliteValued", sqliteValued)
	for _, r := range programExecOptions {
		checkSorted(t, r.name+" valuePrefix", r.val.valuePrefix)
		checkSorted(t, r.name+" sub", r.val.sub)
		checkSorted(t, r.name+" runners", r.val.runners)
	}
	// wrapperNamed looks the shells up first: a shell among wrappers
	// would be shadowed.
	for _, r := range wrappers {
		if slices.Contains(shells, r.name) {
			t.Errorf("wrappers: %q is a shell", r.name)
		}
	}
}

// TestNameTableLookup checks lookup at the edges of a table and between
// its rows.
func TestNameTableLookup(t *testing.T) {
	tab := nameTable[int]{{"b", 1}, {"d", 2}, {"f", 3}}
	tests := []struct {
		name string
		want int
		ok   bool
	}{
		{"", 0, false}, {"a", 0, false}, {"b", 1, true}, {"c", 0, false}, {"d", 2, true},
		{"e", 0, false}, {"f", 3, true}, {"g", 0, false}, {"bb", 0, false},
	}
	for _, tt := range tests {
		if got, ok := tab.lookup(tt.name); got != tt.want || ok != tt.ok {
			t.Errorf("lookup(%q) = %d, %v, want %d, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := (nameTable[int]{}).lookup("a"); ok {
		t.Error("an empty table finds a row")
	}
}

// TestDangerIndex checks dangerIndex and dangerPatterns against
// dangerFloor, as oldDangerTables derives them (the run-time construction
// they replace).
func TestDangerIndex(t *testing.T) {
	exact, patterns := oldDangerTables()
	var want nameTable[[]int]
	for name, l := range exact {
		want = append(want, nameRow[[]int]{name, l})
	}
	sort.Slice(want, func(i, j int) bool { return want[i].name < want[j].name })
	if !reflect.DeepEqual(dangerIndex, want) || !slices.Equal(dangerPatterns, patterns) {
		var b strings.Builder
		for _, r := range want {
			fmt.Fprintf(&b, "{%q, %#v}, ", r.name, r.val)
		}
		t.Errorf("dangerIndex and dangerPatterns do not match dangerFloor; they should be\n%s\n%#v", b.String(), patterns)
	}
}

// TestTablesMatchOld checks that every lookup of the static tables
// returns exactly what the maps they replaced held (oldtables_test.go),
// for every name either knows and for names neither does.
func TestTablesMatchOld(t *testing.T) {
	old := oldProgramTable()
	oldDepth := oldSubcommandDepth()
	wrapperIndex := oldWrapperIndex()
	names := []string{"", "ls", "mkfs.ext4", "/bin/sh", "bash5", "a", "zzz", "[[", "sudox", "sud", "Git"}
	names = slices.AppendSeq(names, maps.Keys(old))
	names = slices.AppendSeq(names, maps.Keys(oldDepth))
	for _, l := range [][]string{shells, rowNames(wrappers), rowNames(dangerIndex), rowNames(knownSafeList),
		rowNames(shellBuiltins), rowNames(programExecOptions), rowNames(gitSubcommandExecOptions), rowNames(subcommandDepth)} {
		names = append(names, l...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		if got, want := render(reflect.ValueOf(lookupProgram(name))), render(reflect.ValueOf(old[name])); got != want {
			t.Errorf("lookupProgram(%q) =\n%s\nwant (as programTable)\n%s", name, got, want)
		}
		for _, prog := range []string{name, "/usr/bin/" + name} {
			w, ok := lookupWrapper(prog)
			want, wantOK := wrapperIndex[path.Base(prog)]
			if ok != wantOK || render(reflect.ValueOf(w)) != render(reflect.ValueOf(want)) {
				t.Errorf("lookupWrapper(%q) = %v, %v, want %v, %v", prog, w, ok, want, wantOK)
			}
		}
		nested, ok := subcommandDepth.lookup(name)
		sub, wantOK := oldDepth[name]
		if ok != wantOK || !slices.Equal(nested, sub.nested) {
			t.Errorf("subcommandDepth.lookup(%q) = %q, %v, want %q, %v", name, nested, ok, sub.nested, wantOK)
		}
	}
}

// TestRenderTellsApart checks that render, which TestTablesMatchOld
// compares with, sees the differences that matter.
func TestRenderTellsApart(t *testing.T) {
	s := func(v any) string { return render(reflect.ValueOf(v)) }
	pairs := [][2]any{
		{wrapper{flag: []string{"-a"}}, wrapper{flag: []string{"-b"}}},
		{wrapper{flag: []string{"-a"}}, wrapper{value: []string{"-a"}}},
		{wrapper{kind: runsArgv}, wrapper{kind: runsShell}},
		{wrapper{permute: true}, wrapper{}},
		{safeEntry{check: sedReadOnly}, safeEntry{check: gitBranchListing}},
		{safeEntry{check: sedReadOnly}, safeEntry{}},
		{&execOptions{valuePrefix: nameTable[string]{{"--a", "x"}}}, &oldExecOptions{valuePrefix: map[string]string{"--a": "y"}}},
		{&execOptions{sub: nameTable[*execOptions]{{"a", &execOptions{short: "x"}}}}, &oldExecOptions{sub: map[string]*oldExecOptions{"b": {short: "x"}}}},
		{programFacts{builtin: printfArgs}, oldProgramFacts{builtin: readArgs}},
		{programFacts{wrapper: &wrapper{}}, oldProgramFacts{}},
		{programFacts{danger: []int{1}}, oldProgramFacts{danger: []int{1, 2}}},
	}
	for _, p := range pairs {
		if s(p[0]) == s(p[1]) {
			t.Errorf("render does not tell %#v from %#v", p[0], p[1])
		}
	}
	same := [][2]any{
		{&execOptions{valuePrefix: nameTable[string]{{"--a", "x"}}}, &oldExecOptions{valuePrefix: map[string]string{"--a": "x"}}},
		{programFacts{builtin: printfArgs, safe: []safeEntry{{maxOperands: -1}}}, oldProgramFacts{builtin: printfArgs, safe: []safeEntry{{maxOperands: -1}}}},
	}
	for _, p := range same {
		if s(p[0]) != s(p[1]) {
			t.Errorf("render tells %s from %s", s(p[0]), s(p[1]))
		}
	}
}

// rowNames returns the names of tab's rows.
func rowNames[T any](tab nameTable[T]) []string {
	out := make([]string, len(tab))
	for i, r := range tab {
		out[i] = r.name
	}
	return out
}

// render writes v out field by field, whatever its type is called: a
// function as its name, a map and a nameTable alike as name: value pairs
// in name order, a nil slice as an empty one.
func render(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return "&" + render(v.Elem())
	case reflect.Func:
		if v.IsNil() {
			return "nil"
		}
		return runtime.FuncForPC(v.Pointer()).Name()
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("{")
		for i := range v.NumField() {
			fmt.Fprintf(&b, "%s: %s; ", v.Type().Field(i).Name, render(v.Field(i)))
		}
		return b.String() + "}"
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var b strings.Builder
		b.WriteString("map{")
		for _, k := range keys {
			fmt.Fprintf(&b, "%q: %s, ", k.String(), render(v.MapIndex(k)))
		}
		return b.String() + "}"
	case reflect.Slice:
		if strings.HasPrefix(v.Type().Elem().Name(), "nameRow[") {
			var b strings.Builder
			b.WriteString("map{")
			for i := range v.Len() {
				fmt.Fprintf(&b, "%q: %s, ", v.Index(i).Field(0).String(), render(v.Index(i).Field(1)))
			}
			return b.String() + "}"
		}
		var b strings.Builder
		b.WriteString("[")
		for i := range v.Len() {
			b.WriteString(render(v.Index(i)) + ", ")
		}
		return b.String() + "]"
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	}
	panic("render: unexpected kind " + v.Kind().String())
}
