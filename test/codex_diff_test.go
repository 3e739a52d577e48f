package test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// codexRules are the rules files both tools load in TestCheckMatchesCodex:
// the bypass corpus's rules, the demo's (examples, alternatives), host
// executables, and prefixes that overlap, with justifications that need
// escaping.
var codexRules = map[string]string{
	"corpus.rules": `prefix_rule(pattern = ["git", "status"], decision = "allow")
prefix_rule(pattern = ["ls"], decision = "allow")
prefix_rule(pattern = ["cat"], decision = "allow")
prefix_rule(pattern = ["echo"], decision = "allow")
prefix_rule(pattern = ["rm"], decision = "forbidden")
prefix_rule(pattern = ["curl"], decision = "forbidden")
prefix_rule(pattern = ["git", "push"], decision = "prompt")
`,
	"hosts.rules": `host_executable(name = "git", paths = ["/usr/bin/git"])
host_executable(name = "ls", paths = ["/bin/ls", "/usr/bin/ls"])
prefix_rule(pattern = ["git", "status"], decision = "allow")
prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt", justification = "talks to the network")
prefix_rule(pattern = ["git", "push", ["--force", "-f"]], decision = "forbidden", justification = "rewrites shared history")
prefix_rule(pattern = ["echo"], justification = "tab\there \"quoted\" bell\x07 <html> & ünïcode")
prefix_rule(pattern = ["ls", "-la"], decision = "prompt")
`,
	"overlap.rules": `prefix_rule(pattern = ["npm"], decision = "prompt")
prefix_rule(pattern = ["npm", ["test", "run"]], decision = "allow")
prefix_rule(pattern = ["npm", "run", ["build", "test"]], decision = "allow", justification = "local scripts")
prefix_rule(pattern = ["npm", "run", "publish"], decision = "forbidden")
prefix_rule(pattern = [["python3", "python"], "-m", ["pip", "venv"]], decision = "prompt")
prefix_rule(pattern = ["docker", ["run", "exec"], "--privileged"], decision = "forbidden", justification = "no host root")
prefix_rule(pattern = ["docker"], decision = "prompt")
prefix_rule(pattern = ["git", "status"], decision = "allow")
`,
}

// codexCommands are the argvs judged under every rules file, beside the
// corpus rows under corpus.rules. Argvs that are not valid UTF-8 are left
// out: codex refuses them as arguments, gatedexec judges their bytes.
var codexCommands = [][]string{
	{"git", "status"}, {"git", "status", "--short"}, {"git", "push", "--force", "origin"},
	{"git", "push", "-f"}, {"git", "fetch"}, {"git"}, {"git", "log"}, {"/usr/bin/git", "status"},
	{"/tmp/git", "status"}, {"/bin/ls", "-la"}, {"ls", "-la"}, {"ls"}, {"rm", "-rf", "/"}, {"curl", "x"},
	{"echo", "a<b>&c"}, {"echo", "tab\there", "new\nline", `back\slash`, `"quoted"`, ""}, {"echo", "ünïcode ✓"},
	{"npm", "test"}, {"npm", "run", "build"}, {"npm", "run", "publish", "--dry-run"}, {"npm", "install"},
	{"python3", "-m", "pip", "install", "x"}, {"python", "-m", "venv", ".v"}, {"python3", "x.py"},
	{"docker", "run", "--privileged", "img"}, {"docker", "exec", "--privileged"}, {"docker", "ps"},
	{"true"}, {"--pretty"}, {"-r", "x"},
}

// codexFlags are the output and matching options both tools take.
var codexFlags = [][]string{nil, {"--pretty"}, {"--resolve-host-executables"}}

// TestCheckMatchesCodex runs `codex execpolicy check`, the native binary
// scripts/codex.sh installs (GATEDEXEC_CODEX names it), and `gatedexec
// check --format codex` on the same rules files and argvs, and wants the
// same bytes and exit status: "Codex rules load unchanged with
// byte-identical check output" checked against Codex itself, not against
// files written from it once. Rules files Codex refuses are refused by
// gatedexec too.
func TestCheckMatchesCodex(t *testing.T) {
	codex := codexBin(t)
	dir := t.TempDir()
	for name, src := range codexRules {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	demo, err := filepath.Abs("../examples/demo.rules")
	if err != nil {
		t.Fatal(err)
	}
	type job struct{ rules, flags, argv []string }
	var jobs []job
	for _, row := range codexCorpusArgvs(t) {
		jobs = append(jobs, job{rules: []string{"corpus.rules"}, argv: row})
	}
	for _, rules := range [][]string{{"hosts.rules"}, {"overlap.rules"}, {demo}, {"hosts.rules", "overlap.rules", demo}} {
		for _, flags := range codexFlags {
			for _, argv := range codexCommands {
				jobs = append(jobs, job{rules: rules, flags: flags, argv: argv})
			}
		}
	}
	env := codexEnv(t, dir)
	each(t, len(jobs), func(i int) error {
		j := jobs[i]
		var cargs, gargs []string
		for _, r := range j.rules {
			cargs = append(cargs, "--rules", r)
			gargs = append(gargs, "-r", r)
		}
		cargs = append(append(append(append([]string{"execpolicy", "check"}, cargs...), j.flags...), "--"), j.argv...)
		gargs = append(append(append(append([]string{"check", "--format", "codex"}, gargs...), j.flags...), "--"), j.argv...)
		want, wantCode := runIn(dir, env, codex, cargs...)
		got, gotCode := runIn(dir, env, gatedexecBin, gargs...)
		if wantCode != 0 {
			return fmt.Errorf("codex %q: exit %d: %s", cargs, wantCode, want)
		}
		if gotCode != wantCode || !bytes.Equal(got, want) {
			return fmt.Errorf("rules %q, flags %q, argv %q:\ncodex     (exit %d): %q\ngatedexec (exit %d): %q",
				j.rules, j.flags, j.argv, wantCode, want, gotCode, got)
		}
		return nil
	})
}

// TestCheckRefusesWhatCodexRefuses: a rules file Codex will not load,
// gatedexec will not judge with either (it never guesses at a policy).
func TestCheckRefusesWhatCodexRefuses(t *testing.T) {
	codex := codexBin(t)
	bad := []string{
		`prefix_rule(pattern = ["git"], decision = "maybe")`,
		`prefix_rule(pattern = [], decision = "allow")`,
		`prefix_rule(pattern = "git", decision = "allow")`,
		`prefix_rule(pattern = ["git", []], decision = "allow")`,
		`prefix_rule(decision = "allow")`,
		`prefix_rule(pattern = ["git"], decision = "allow", match = ["ls"])`,
		`prefix_rule(pattern = ["git"], decision = "allow", not_match = ["git status"])`,
		`prefix_rule(pattern = ["git"], decision = "allow"`,
		`prefix_rule(pattern = ["git"], nonsense = 1)`,
		`undefined_function()`,
		`host_executable(name = "git", paths = ["git"])`,
	}
	dir := t.TempDir()
	env := codexEnv(t, dir)
	each(t, len(bad), func(i int) error {
		f := filepath.Join(dir, fmt.Sprintf("bad%d.rules", i))
		if err := os.WriteFile(f, []byte(bad[i]+"\n"), 0o644); err != nil {
			return err
		}
		if out, code := runIn(dir, env, codex, "execpolicy", "check", "--rules", f, "git", "status"); code == 0 {
			return fmt.Errorf("%s: codex loads it (%s): not a case for this test", bad[i], out)
		}
		if out, code := runIn(dir, env, gatedexecBin, "check", "--format", "codex", "-r", f, "--", "git", "status"); code == 0 {
			return fmt.Errorf("%s: codex refuses it, gatedexec judged with it: %s", bad[i], out)
		}
		return nil
	})
}

// codexBin returns Codex's binary, GATEDEXEC_CODEX. Without it the
// comparison is skipped, except under CI, which must make it.
func codexBin(t *testing.T) string {
	codex := os.Getenv("GATEDEXEC_CODEX")
	if codex == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("GATEDEXEC_CODEX is not set: make unit sets it from scripts/codex.sh, and CI must compare with Codex")
		}
		t.Skip("GATEDEXEC_CODEX is not set (scripts/codex.sh installs codex and prints its path)")
	}
	return codex
}

// codexCorpusArgvs returns the bypass corpus's commands as argvs, split
// at blanks: both tools judge an argv, whatever shell words it came from.
// Argvs that are not valid UTF-8 are left out, as in codexCommands, and
// so are those holding a NUL byte, which no argv can.
func codexCorpusArgvs(t *testing.T) [][]string {
	var rows [][]string
	for _, cmd := range oracleCorpus(t) {
		if argv := strings.Fields(cmd); len(argv) > 0 && utf8.ValidString(cmd) && !strings.ContainsRune(cmd, 0) {
			rows = append(rows, argv)
		}
	}
	if len(rows) < 100 {
		t.Fatalf("%s: %d rows, want the whole corpus", oracleCorpusPath, len(rows))
	}
	return rows
}

// codexEnv is an environment in which neither tool finds a configuration
// of the user's or of the machine's: only the -r files decide.
func codexEnv(t *testing.T, dir string) []string {
	home := filepath.Join(dir, "home")
	etc := filepath.Join(dir, "etc")
	for _, d := range []string{filepath.Join(home, ".codex"), etc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"), "PATH=/usr/bin:/bin",
		"GATEDEXEC_SYSTEM_DIR=" + etc, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
}

// runIn runs name with args in dir and returns its stdout (stderr after
// it when it fails) and exit status; -1 when it could not run.
func runIn(dir string, env []string, name string, args ...string) ([]byte, int) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), 0
	case errors.As(err, &ee):
		return append(stdout.Bytes(), stderr.Bytes()...), ee.ExitCode()
	default:
		return []byte(err.Error()), -1
	}
}

// each runs f(0..n-1) on a few goroutines and reports every error.
func each(t *testing.T, n int, f func(i int) error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					t.Error(err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
