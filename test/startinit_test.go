package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initLine is a line of GODEBUG=inittrace=1: a package's initialiser and
// how many allocations it made.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @.*, (\d+) bytes, (\d+) allocs$`)

// TestStartSkipsDependencyWork: the binary built as `make build` builds it
// does none of the start-up work scripts/depatch removes from its
// dependencies: fileutil and cobra compile no regular expression at
// start (104 and 14 allocations unpatched), Starlark builds its universe
// and method tables at first use (121 allocations at start unpatched),
// and nothing links compress/gzip, whose packages build their tables at
// start.
func TestStartSkipsDependencyWork(t *testing.T) {
	c := exec.Command(gatedexecBin, "version")
	c.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("gatedexec version: %v\n%s", err, out)
	}
	allocs := map[string]int{}
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[3])
		allocs[m[1]] = n
	}
	if len(allocs) < 20 {
		t.Fatalf("only %d initialisers traced:\n%s", len(allocs), out)
	}
	for _, pkg := range []string{"compress/gzip", "compress/flate", "hash/crc32"} {
		if _, ok := allocs[pkg]; ok {
			t.Errorf("%s is linked and initialised at start", pkg)
		}
	}
	for pkg, most := range map[string]int{"mvdan.cc/sh/v3/fileutil": 8, "github.com/spf13/cobra": 8, "go.starlark.net/starlark": 20} {
		if n, ok := allocs[pkg]; !ok || n > most {
			t.Errorf("%s's initialiser made %d allocations (traced: %v), want at most %d", pkg, n, ok, most)
		}
	}
}

// TestCompletionRequests: with cobra's hidden __complete command built only
// when it is the command called (scripts/depatch), a shell's completion
// requests, with and without descriptions, are still answered, and a
// command line that only mentions it later is not taken for one.
func TestCompletionRequests(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "run", "--profile", ""}, "workspace-write\tRead everything except secrets"},
		{[]string{"__completeNoDesc", "run", "--profile", ""}, "workspace-write\n"},
		{[]string{"__complete", "ru"}, "run\t"},
	} {
		out, err := exec.Command(gatedexecBin, tt.args...).Output()
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), "\n:") {
			t.Errorf("%q printed\n%s\nwant a line with %q and a directive", tt.args, out, tt.want)
		}
	}
	out, err := exec.Command(gatedexecBin, "check", "--", "echo", "__complete").Output()
	if err != nil || !strings.Contains(string(out), `"decision"`) {
		t.Errorf("check -- echo __complete: %v\n%s", err, out)
	}
}

// TestStarlarkAtFirstUse: with Starlark's universe and method tables made
// at first use (scripts/depatch), a rules file compiled afresh (a new
// cache directory) can still call built-ins and the methods of strings,
// lists and dicts, and is judged by what it computed.
func TestStarlarkAtFirstUse(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "m.rules")
	src := `progs = ["git", "npm"]
extra = {"make": "allow"}
names = []
for p in progs:
    names.append(p.upper().lower())
for k, v in extra.items():
    prefix_rule(pattern=[k], decision=v)
prefix_rule(pattern=[names[0], "status"], decision="allow", justification="ok %d" % len(names))
prefix_rule(pattern=[" npm ".strip()], decision="forbidden")
`
	if err := os.WriteFile(rules, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"git", "status"}, `"decision":"allow","matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow","justification":"ok 2"}}]`},
		{[]string{"npm", "i"}, `"decision":"forbidden"`},
		{[]string{"make"}, `"matchedPrefix":["make"],"decision":"allow"`},
	} {
		c := exec.Command(gatedexecBin, append([]string{"check", "-r", rules, "--"}, tt.argv...)...)
		c.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
		out, err := c.Output()
		if err != nil {
			t.Errorf("check %q: %v\n%s", tt.argv, err, out)
			continue
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("check %q printed\n%s\nwant %s", tt.argv, out, tt.want)
		}
	}
}
