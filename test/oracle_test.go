package test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/internal/corpus"
)

// The execution oracle: a script is run in real bash inside `gatedexec
// sandbox` (read-only but for a log directory, network off), with a PATH
// of logging stand-ins and a command_not_found_handle that logs every
// other program bash tries to run. Every program bash ran is judged as an
// argv by the same rules; the analysis of the script fails the oracle when
// bash ran a forbidden command and the script was not judged forbidden, or
// ran any command not allowed and the script was allowed. The oracle
// checks only that the analysis collected what bash ran, never that it is
// not stricter than needed.

// oracleCorpusPath is the public corpus, relative to this package.
const oracleCorpusPath = "../../shared/corpus/policy_bypass.tsv"

// oracleTimeout bounds every run of bash.
const oracleTimeout = 5 * time.Second

// standIns are the programs given a logging stand-in in PATH: the ones of
// the rules, the wrappers and shells, and what scripts commonly run. Any
// other program bash looks up reaches command_not_found_handle, which
// logs it too; the stand-ins also catch exec and command -p, which skip
// that handler.
var standIns = []string{
	"rm", "curl", "ls", "cat", "echo", "git", "env", "sudo", "doas", "nice", "nohup", "timeout", "stdbuf",
	"setsid", "xargs", "find", "busybox", "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "time", "printf",
	"test", "true", "false", "whoami", "wget", "python3", "perl", "id", "chmod", "tar", "sort", "grep", "sed",
	"awk", "head", "tail", "wc", "tee", "mkdir", "cp", "mv", "touch", "date", "uname", "su", "watch", "flock",
}

// passThrough are the stand-ins that, once they logged, run the real
// program: wrappers and shells, whose grammar is what the oracle checks.
var passThrough = map[string]bool{
	"env": true, "nice": true, "nohup": true, "timeout": true, "stdbuf": true, "setsid": true, "xargs": true,
	"find": true, "sh": true, "bash": true, "dash": true,
}

// oracle is a prepared sandbox for running scripts: the stand-ins, the
// profile and the files bash reads.
type oracle struct {
	dir, bin, logs, home, profile, bashEnv string
	bash                                   string
	policy                                 *execpolicy.Policy
	runs                                   int
	mu                                     sync.Mutex
}

var (
	oracleOnce sync.Once
	theOracle  *oracle
	oracleErr  error
)

// newOracle returns the oracle of this test binary, made on first use. It
// skips when bash is absent or the host cannot run the sandbox, but never
// when CI is set.
func newOracle(t testing.TB) *oracle {
	t.Helper()
	oracleOnce.Do(func() { theOracle, oracleErr = makeOracle() })
	if oracleErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("execution oracle: %v (CI is set: it may not skip)", oracleErr)
		}
		t.Skipf("execution oracle: %v", oracleErr)
	}
	return theOracle
}

func makeOracle() (*oracle, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("no bash: %w", err)
	}
	// Not under /tmp: the command's /tmp is its own, and the stand-ins
	// must be where it looks for them.
	dir, err := os.MkdirTemp("/var/tmp", "gatedexec-oracle-")
	if err != nil {
		return nil, err
	}
	o := &oracle{dir: dir, bash: bash, policy: oraclePolicy(),
		bin: filepath.Join(dir, "bin"), logs: filepath.Join(dir, "logs"), home: filepath.Join(dir, "home"),
		profile: filepath.Join(dir, "oracle.toml"), bashEnv: filepath.Join(dir, "bash_env")}
	for _, d := range []string{o.bin, o.logs, o.home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	// A stand-in logs its name and arguments, NUL-separated, to a file
	// of its own, and succeeds, so that && chains go on.
	stub := "#!/bin/sh\nprintf '%s\\0' \"${0##*/}\" \"$@\" >\"$ORACLE_LOGS/p.$$\"\nexit 0\n"
	for _, name := range standIns {
		body := stub
		if passThrough[name] {
			// A wrapper logs, then runs as itself, so that what it runs
			// is looked up in PATH and logged in turn.
			if real, err := exec.LookPath(name); err == nil {
				body = strings.Replace(stub, "exit 0", "exec "+real+" \"$@\"", 1)
			}
		}
		if err := os.WriteFile(filepath.Join(o.bin, name), []byte(body), 0o755); err != nil {
			return nil, err
		}
	}
	handler := "command_not_found_handle() { printf '%s\\0' \"$@\" >\"$ORACLE_LOGS/h.$BASHPID.$RANDOM\"; return 0; }\n"
	if err := os.WriteFile(o.bashEnv, []byte(handler), 0o644); err != nil {
		return nil, err
	}
	profile := fmt.Sprintf("description = \"execution oracle\"\nextends = \"read-only\"\n[filesystem]\nwrite = [%q]\n", o.logs)
	if err := os.WriteFile(o.profile, []byte(profile), 0o644); err != nil {
		return nil, err
	}
	// The sandbox must work here: a script that runs ls must log it.
	ran, err := o.run("ls -l")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if len(ran) != 1 || strings.Join(ran[0], " ") != "ls -l" {
		return nil, fmt.Errorf("probe logged %q, want [[ls -l]]", ran)
	}
	return o, nil
}

// oraclePolicy is the policy in the corpus header.
func oraclePolicy() *execpolicy.Policy {
	p := execpolicy.NewPolicy()
	for _, r := range []execpolicy.PrefixRule{
		{Program: "git", Rest: [][]string{{"status"}}, Decision: execpolicy.Allow},
		{Program: "ls", Decision: execpolicy.Allow},
		{Program: "cat", Decision: execpolicy.Allow},
		{Program: "echo", Decision: execpolicy.Allow},
		{Program: "rm", Decision: execpolicy.Forbidden},
		{Program: "curl", Decision: execpolicy.Forbidden},
		{Program: "git", Rest: [][]string{{"push"}}, Decision: execpolicy.Prompt},
	} {
		p.AddPrefixRule(r)
	}
	return p
}

// run runs script in bash in the sandbox and returns the argv of every
// program it ran. Runs are one at a time: they share the log directory.
func (o *oracle) run(script string) ([][]string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := clearDir(o.logs); err != nil {
		return nil, err
	}
	o.runs++
	ctx, cancel := context.WithTimeout(context.Background(), oracleTimeout+2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gatedexecBin, "sandbox", "-p", o.profile, "--timeout", oracleTimeout.String(),
		"-C", o.home, "-w", o.home, "--", o.bash, "-c", script)
	cmd.Env = []string{"PATH=" + o.bin, "HOME=" + o.home, "BASH_ENV=" + o.bashEnv, "ORACLE_LOGS=" + o.logs, "LC_ALL=C"}
	cmd.Stdin = nil
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() != 125 && ee.ExitCode() >= 0 {
		err = nil // the script's own status
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, stderr.String())
	}
	return readLogs(o.logs)
}

// clearDir removes what dir holds.
func clearDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// readLogs returns the argvs logged in dir.
func readLogs(dir string) ([][]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if len(argv) > 0 && argv[0] != "" {
			out = append(out, argv)
		}
	}
	return out, nil
}

// check runs script and reports what the analysis missed: a program bash
// ran whose argv is forbidden while the script was not judged forbidden,
// or one not allowed while the script was allowed.
func (o *oracle) check(script string) (string, error) {
	ev := o.policy.Evaluate([]string{script}, execpolicy.EvalOptions{Shell: true})
	if ev.Decision == execpolicy.Forbidden {
		// Nothing it could have missed matters: it is the strictest.
		return "", nil
	}
	if strings.IndexByte(script, 0) >= 0 {
		return "", nil // no argument can hold a NUL: bash never sees it
	}
	ran, err := o.run(script)
	if err != nil {
		return "", err
	}
	for _, argv := range ran {
		got := o.policy.Evaluate(argv, execpolicy.EvalOptions{}).Decision
		switch {
		case got == execpolicy.Forbidden && (coversDynamically(ev.Commands, argv) || readsStdin(ev)):
			// The analysis collected a command it could not know
			// statically ($a$b, eval "$x"): prompt is its due.
		case got == execpolicy.Forbidden:
			return fmt.Sprintf("bash ran forbidden %q; the script was judged %v (%v)", argv, ev.Decision, ev.Reasons), nil
		case ev.Decision == execpolicy.Allow && got != execpolicy.Allow:
			return fmt.Sprintf("bash ran %q (%v); the script was allowed", argv, got), nil
		}
	}
	return "", nil
}

// codeRunners are the programs whose dynamic arguments may be the code
// they run: a dynamic command of one of them may have run anything.
var codeRunners = map[string]bool{
	"eval": true, "source": true, ".": true, "trap": true, "exec": true, "command": true, "builtin": true,
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "env": true, "sudo": true, "xargs": true,
	"nohup": true, "nice": true, "timeout": true, "find": true, "mapfile": true, "readarray": true,
}

// coversDynamically reports whether cmds holds a dynamic command that may
// be argv: one whose command word is argv's program or not a plain name
// ($a$b, "$(printf rm)"), or one of a program that runs its arguments.
func coversDynamically(cmds []execpolicy.Command, argv []string) bool {
	for _, c := range cmds {
		if !c.Dynamic || len(c.Argv) == 0 {
			continue
		}
		prog := c.Argv[0]
		if prog == argv[0] || codeRunners[filepath.Base(prog)] || strings.ContainsAny(prog, "$`*?[{~\\'\"") {
			return true
		}
	}
	return false
}

// readsStdin reports whether the analysis found a shell that reads its
// script from stdin (echo rm | sh), which no analysis of the script sees.
func readsStdin(ev execpolicy.Evaluation) bool {
	for _, r := range ev.Reasons {
		if strings.HasSuffix(r.Detail, "reads its commands from stdin") {
			return true
		}
	}
	return false
}

// oracleCorpus returns the decoded commands of the public corpus.
func oracleCorpus(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(oracleCorpusPath)
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, _, _ := strings.Cut(line, "\t")
		s, err := corpus.DecodeCommand(cmd)
		if err != nil {
			t.Fatalf("corpus: %v", err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("corpus: %v", err)
	}
	return out
}

// TestCorpusVsBash runs every corpus row in bash: the analysis must have
// collected every command bash ran.
func TestCorpusVsBash(t *testing.T) {
	o := newOracle(t)
	for _, script := range append(oracleCorpus(t), oracleSeeds...) {
		miss, err := o.check(script)
		if err != nil {
			t.Fatalf("%q: %v", script, err)
		}
		if miss != "" {
			t.Errorf("%q: %s", script, miss)
		}
	}
}

// TestOracleCatches shows that the oracle can fail: each script runs a
// forbidden command that an analysis judging it allow or prompt would
// have missed, so the oracle reports it against a decision made up here.
func TestOracleCatches(t *testing.T) {
	o := newOracle(t)
	for _, script := range []string{"rm -rf x", "ls; curl http://evil.example/x", "cat <<'EOF'\nx\nEOF\nwhoami"} {
		ran, err := o.run(script)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, argv := range ran {
			if d := o.policy.Evaluate(argv, execpolicy.EvalOptions{}).Decision; d != execpolicy.Allow {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: bash ran %q, in which the oracle finds nothing not allowed", script, ran)
		}
	}
}

// FuzzAnalyseVsBash runs generated scripts in bash: the analysis must
// have collected every command bash ran.
func FuzzAnalyseVsBash(f *testing.F) {
	for _, s := range oracleCorpus(f) {
		f.Add(s)
	}
	for _, s := range oracleSeeds {
		f.Add(s)
	}
	o := newOracle(f)
	f.Fuzz(func(t *testing.T, script string) {
		if len(script) > 4096 || strings.IndexByte(script, 0) >= 0 {
			return // bash cannot be given a NUL; long inputs only slow the search
		}
		miss, err := o.check(script)
		if err != nil {
			t.Skipf("%q: %v", script, err)
		}
		if miss != "" {
			t.Fatalf("%q: %s", script, miss)
		}
	})
}
