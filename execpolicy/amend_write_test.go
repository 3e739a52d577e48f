package execpolicy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// amendHelperEnv makes the test binary an appending child process.
const amendHelperEnv = "GATEDEXEC_AMEND_HELPER"

func TestAmendHelperProcess(t *testing.T) {
	path := os.Getenv(amendHelperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	n := os.Getenv("AMEND_N")
	for i := range 10 {
		if _, err := AppendAllowRule(path, []string{"tool" + n, strconv.Itoa(i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
	os.Exit(0)
}

// loadAllows loads path and checks that each prefix is allowed by it.
func loadAllows(t *testing.T, path string, prefixes ...[]string) *Policy {
	t.Helper()
	p, err := LoadFiles(path)
	if err != nil {
		t.Fatalf("amended file does not load: %v", err)
	}
	for _, pre := range prefixes {
		ms := p.MatchArgv(pre, MatchOptions{})
		if len(ms) == 0 || ms[0].Decision != Allow || strings.Join(ms[0].MatchedPrefix, "\x00") != strings.Join(pre, "\x00") {
			t.Errorf("prefix %q: matches %+v, want an allow rule for exactly it", pre, ms)
		}
	}
	return p
}

func TestAppendAllowRule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "rules", "default.rules")
	prefixes := [][]string{
		{"git", "status"},
		{"npm", "run", "test"},
		{"weird", `quo"te`, `back\slash`, "new\nline", "tab\t", "ctl\x01\x7f", "uni\u00e9\u2028", "c1\u0085"},
	}
	for _, pre := range prefixes {
		added, err := AppendAllowRule(path, pre)
		if err != nil || !added {
			t.Fatalf("AppendAllowRule(%q) = %v, %v", pre, added, err)
		}
	}
	loadAllows(t, path, prefixes...)
	before, _ := os.ReadFile(path)
	for _, pre := range prefixes {
		added, err := AppendAllowRule(path, pre)
		if err != nil || added {
			t.Fatalf("duplicate AppendAllowRule(%q) = %v, %v; want not added", pre, added, err)
		}
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Errorf("duplicates changed the file:\n%s", after)
	}
	if got := strings.Count(string(after), "\n"); got != len(prefixes) {
		t.Errorf("%d lines, want %d", got, len(prefixes))
	}
	if !strings.HasPrefix(string(after), `prefix_rule(pattern=["git", "status"], decision="allow")`+"\n") {
		t.Errorf("unexpected rule text:\n%s", after)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("rules file mode: %v %v", fi, err)
	}
}

func TestAppendAllowRuleKeepsExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.rules")
	// No trailing newline: the appended rule must still start a line.
	old := `prefix_rule(pattern=["rm"], decision="forbidden")`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendAllowRule(path, []string{"ls"}); err != nil {
		t.Fatal(err)
	}
	p := loadAllows(t, path, []string{"ls"})
	if ms := p.MatchArgv([]string{"rm", "x"}, MatchOptions{}); len(ms) != 1 || ms[0].Decision != Forbidden {
		t.Errorf("existing rule lost: %+v", ms)
	}
}

func TestAppendAllowRuleRejects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.rules")
	for _, pre := range [][]string{nil, {}, {""}, {"a", ""}, {"bad\xff"}, {"nul\x00"}} {
		if added, err := AppendAllowRule(path, pre); err == nil || added {
			t.Errorf("AppendAllowRule(%q) = %v, %v; want an error", pre, added, err)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("rejected input created the file")
	}
}

func TestAppendAllowRuleConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rules", "default.rules")
	const procs = 4
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestAmendHelperProcess$")
			cmd.Env = append(os.Environ(), amendHelperEnv+"="+path, "AMEND_N="+strconv.Itoa(p%2))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child %d: %v: %s", p, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want [][]string
	for n := range 2 {
		for i := range 10 {
			want = append(want, []string{"tool" + strconv.Itoa(n), strconv.Itoa(i)})
		}
	}
	loadAllows(t, path, want...)
	data, _ := os.ReadFile(path)
	// Two processes append each rule; exactly one may write it.
	if got := strings.Count(string(data), "\n"); got != len(want) {
		t.Errorf("%d lines, want %d (duplicates or lost rules):\n%s", got, len(want), data)
	}
}
