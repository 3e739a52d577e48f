//go:build unix

package test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// amendDeadline bounds the wait for a round of concurrent runs; reaching
// it fails the test (a hang), it times nothing.
const amendDeadline = 2 * time.Minute

// amendCommand is a command no rule covers, which the untrusted policy
// asks about, the rule an "always" answer writes for it, and what it
// leaves in the workspace.
type amendCommand struct {
	argv func(i int) []string
	made func(i int) string // the path, relative to the workspace, it creates
	rule string
}

var amendCommands = []amendCommand{
	{argv: func(i int) []string { return []string{"touch", fmt.Sprintf("t%d", i)} },
		made: func(i int) string { return fmt.Sprintf("t%d", i) }, rule: `prefix_rule(pattern=["touch"], decision="allow")`},
	{argv: func(i int) []string { return []string{"mkdir", "-p", fmt.Sprintf("d%d", i)} },
		made: func(i int) string { return fmt.Sprintf("d%d", i) }, rule: `prefix_rule(pattern=["mkdir"], decision="allow")`},
	{argv: func(i int) []string { return []string{"truncate", "-s", "0", fmt.Sprintf("u%d", i)} },
		made: func(i int) string { return fmt.Sprintf("u%d", i) }, rule: `prefix_rule(pattern=["truncate"], decision="allow")`},
	{argv: func(i int) []string { return []string{"tee", fmt.Sprintf("e%d", i)} },
		made: func(i int) string { return fmt.Sprintf("e%d", i) }, rule: `prefix_rule(pattern=["tee"], decision="allow")`},
	{argv: func(i int) []string { return []string{"ln", "-s", "nowhere", fmt.Sprintf("l%d", i)} },
		made: func(i int) string { return fmt.Sprintf("l%d", i) }, rule: `prefix_rule(pattern=["ln"], decision="allow")`},
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// alwaysApprover is a shell script for --approver exec: that answers
// every request "approved_always" for its id and appends the id to calls.
// With a barrier it first announces the request on the FIFO arrive and
// waits for a line on the FIFO release, so that a test can hold every
// approval until all processes have asked.
func alwaysApprover(t *testing.T, dir, calls string, barrier bool) string {
	t.Helper()
	path := filepath.Join(dir, "always.sh")
	text := `id=$(sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
[ -n "$id" ] || exit 1
echo "$id" >> '` + calls + "'\n"
	if barrier {
		text += `echo "$id" > '` + filepath.Join(dir, "arrive") + `'
read go < '` + filepath.Join(dir, "release") + "'\n"
	}
	text += `printf '{"id":"%s","outcome":"approved_always"}\n' "$id"` + "\n"
	writeScript(t, path, text)
	return path
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// checkRules asserts that the rules file at path holds exactly the rules
// want, each once, and nothing else but blank lines and comments.
func checkRules(t *testing.T, path string, want []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("user rules file: %v", err)
	}
	count := map[string]int{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			count[l]++
		}
	}
	for _, r := range want {
		if count[r] != 1 {
			t.Errorf("%s holds %s %d times, want once", path, r, count[r])
		}
		delete(count, r)
	}
	for r, n := range count {
		t.Errorf("%s holds an unexpected line %d times: %s", path, n, r)
	}
	if t.Failed() {
		t.Logf("%s:\n%s", path, data)
	}
	rt := exec.Command(gatedexecBin, "rules", "test", path)
	if out, err := rt.CombinedOutput(); err != nil {
		t.Errorf("gatedexec rules test %s: %v\n%s", path, err, out)
	}
}

// runAll starts one `gatedexec run` per argument list at once and returns
// each one's exit status and combined output once all have exited.
// onStarted, when non-nil, runs after every process has started.
func runAll(t *testing.T, env []string, argss [][]string, onStarted func()) ([]int, []string) {
	t.Helper()
	codes, outs := make([]int, len(argss)), make([]string, len(argss))
	cmds := make([]*exec.Cmd, len(argss))
	bufs := make([]*bytes.Buffer, len(argss))
	for i, args := range argss {
		cmd := exec.Command(gatedexecBin, args...)
		cmd.Env = env
		bufs[i] = new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = bufs[i], bufs[i]
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting run %d: %v", i, err)
		}
		cmds[i] = cmd
	}
	t.Cleanup(func() {
		for _, c := range cmds {
			if c.ProcessState == nil {
				c.Process.Kill()
			}
		}
	})
	if onStarted != nil {
		onStarted()
	}
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Go(func() {
			err := cmd.Wait()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Errorf("run %d: %v", i, err)
			}
			codes[i] = cmd.ProcessState.ExitCode()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(amendDeadline):
		for _, c := range cmds {
			c.Process.Kill()
		}
		<-done
		t.Fatalf("the runs did not all exit within %v", amendDeadline)
	}
	for i := range outs {
		outs[i] = bufs[i].String()
	}
	return codes, outs
}

// TestAmendConcurrent runs 20 `gatedexec run` processes at once over 5
// commands, each answered "always" by an exec approver, against one user
// rules file. Every process asks before any answer is given (the approver
// holds them at a barrier), so four writers race for each rule: the file
// must end up with each rule exactly once, load, and allow every command.
func TestAmendConcurrent(t *testing.T) {
	const n = 20
	f := newGateFixture(t, `prefix_rule(pattern=["git", "push"], decision="prompt")`+"\n")
	calls := filepath.Join(f.dir, "calls")
	for _, name := range []string{"arrive", "release"} {
		if err := syscall.Mkfifo(filepath.Join(f.dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Opened read-write, neither end blocks on open and the approvers
	// never see EOF while the test holds them.
	arrive, err := os.OpenFile(filepath.Join(f.dir, "arrive"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer arrive.Close()
	release, err := os.OpenFile(filepath.Join(f.dir, "release"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release.Close()
	approver := "exec:" + alwaysApprover(t, f.dir, calls, true)
	untrusted := []string{"--approval-policy", "untrusted"}

	argss := make([][]string, n)
	for i := range argss {
		c := amendCommands[i%len(amendCommands)]
		argss[i] = f.runWith(approver, filepath.Join(f.dir, fmt.Sprintf("result%d.json", i)), untrusted, c.argv(i)...)
	}
	codes, outs := runAll(t, f.env, argss, func() {
		// Wait for all n requests, then answer them all.
		arrived := make(chan error, 1)
		go func() {
			sc := bufio.NewScanner(arrive)
			for range n {
				if !sc.Scan() {
					arrived <- fmt.Errorf("arrivals ended: %v", sc.Err())
					return
				}
			}
			arrived <- nil
		}()
		select {
		case err := <-arrived:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(amendDeadline):
			t.Errorf("only some of the %d runs reached the approver within %v", n, amendDeadline)
		}
		if _, err := release.WriteString(strings.Repeat("go\n", n)); err != nil {
			t.Error(err)
		}
	})
	for i := range n {
		c := amendCommands[i%len(amendCommands)]
		if codes[i] != 0 {
			t.Errorf("run %d %q: exit %d\n%s", i, c.argv(i), codes[i], outs[i])
			continue
		}
		if _, err := os.Lstat(filepath.Join(f.ws, c.made(i))); err != nil {
			t.Errorf("run %d %q did not run: %v", i, c.argv(i), err)
		}
		if res := readResult(t, filepath.Join(f.dir, fmt.Sprintf("result%d.json", i))); res.Approval.By != "exec" || res.Approval.Outcome != "approved_always" {
			t.Errorf("run %d: approval %+v, want approved_always by exec", i, res.Approval)
		}
	}
	if got := countLines(t, calls); got != n {
		t.Errorf("the approver was asked %d times, want %d (every run, before any rule existed)", got, n)
	}

	var want []string
	for _, c := range amendCommands {
		want = append(want, c.rule)
	}
	checkRules(t, f.userRules, want)
	for _, c := range amendCommands {
		if got := checkArgv(t, f.env, f.ws, []string{"-r", f.userRules}, c.argv(n)...); got != "allow" {
			t.Errorf("gatedexec check -r %s -- %q: %s, want allow", f.userRules, c.argv(n), got)
		}
	}

	// A second round is allowed by the written rules: the deny approver
	// refuses anything that would still ask.
	for i := range argss {
		c := amendCommands[i%len(amendCommands)]
		argss[i] = f.runWith("deny", filepath.Join(f.dir, fmt.Sprintf("again%d.json", i)), untrusted, c.argv(n+i)...)
	}
	codes, outs = runAll(t, f.env, argss, nil)
	for i := range n {
		c := amendCommands[i%len(amendCommands)]
		if codes[i] != 0 {
			t.Errorf("second round, run %d %q: exit %d\n%s", i, c.argv(n+i), codes[i], outs[i])
		} else if _, err := os.Lstat(filepath.Join(f.ws, c.made(n+i))); err != nil {
			t.Errorf("second round, run %d %q did not run: %v", i, c.argv(n+i), err)
		}
	}
	checkRules(t, f.userRules, want)
}

// TestAmendSequential approves the same command "always" twice in a row:
// once through the exec approver (the second run is allowed by the rule
// and does not ask), and once through two deferred requests resumed one
// after the other with --approve ID:always. The rule is written once.
func TestAmendSequential(t *testing.T) {
	f := newGateFixture(t, `prefix_rule(pattern=["git", "push"], decision="prompt")`+"\n")
	calls := filepath.Join(f.dir, "calls")
	approver := "exec:" + alwaysApprover(t, f.dir, calls, false)
	untrusted := []string{"--approval-policy", "untrusted"}
	touch := amendCommands[0]
	mkdir := amendCommands[1]

	run := func(approver, result string, extra []string, argv ...string) (int, string) {
		cmd := exec.Command(gatedexecBin, f.runWith(approver, result, append(untrusted, extra...), argv...)...)
		cmd.Env = f.env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}

	for i, want := range []struct {
		by    string
		calls int
	}{{"exec", 1}, {"rule", 1}} {
		result := filepath.Join(f.dir, fmt.Sprintf("exec%d.json", i))
		if code, out := run(approver, result, nil, touch.argv(i)...); code != 0 {
			t.Fatalf("run %d %q: exit %d\n%s", i, touch.argv(i), code, out)
		}
		if !exists(t, filepath.Join(f.ws, touch.made(i))) {
			t.Errorf("run %d %q did not run", i, touch.argv(i))
		}
		if res := readResult(t, result); res.Approval.By != want.by {
			t.Errorf("run %d: approval %+v, want by %s", i, res.Approval, want.by)
		}
		if got := countLines(t, calls); got != want.calls {
			t.Errorf("after run %d the approver was asked %d times, want %d", i, got, want.calls)
		}
		checkRules(t, f.userRules, []string{touch.rule})
	}

	// Two hosts defer the same request before either resumes it.
	argv := mkdir.argv(0)
	var id string
	for i := range 2 {
		result := filepath.Join(f.dir, fmt.Sprintf("deferred%d.json", i))
		if code, out := run("defer", result, nil, argv...); code != 75 {
			t.Fatalf("deferred run %d: exit %d, want 75\n%s", i, code, out)
		}
		req := readRequest(t, result)
		if strings.Join(req.ProposedRule, " ") != "mkdir" {
			t.Fatalf("deferred request proposes %q, want [mkdir]", req.ProposedRule)
		}
		if i == 1 && req.ID != id {
			t.Fatalf("the same command deferred twice has ids %s and %s", id, req.ID)
		}
		id = req.ID
	}
	for i, by := range []string{"defer", "rule"} {
		result := filepath.Join(f.dir, fmt.Sprintf("resumed%d.json", i))
		if code, out := run("defer", result, []string{"--approve", id + ":always"}, argv...); code != 0 {
			t.Fatalf("resume %d: exit %d\n%s", i, code, out)
		}
		if res := readResult(t, result); res.Approval.By != by {
			t.Errorf("resume %d: approval %+v, want by %s", i, res.Approval, by)
		}
		checkRules(t, f.userRules, []string{touch.rule, mkdir.rule})
	}
	if !exists(t, filepath.Join(f.ws, mkdir.made(0))) {
		t.Errorf("%q did not run after it was approved", argv)
	}
}

// deferredRequest is the part of a deferred run's --result-file a test checks.
type deferredRequest struct {
	ID           string   `json:"id"`
	ProposedRule []string `json:"proposed_rule"`
}

func readRequest(t *testing.T, path string) deferredRequest {
	t.Helper()
	r, data := readJSON[deferredRequest](t, "deferred request", path)
	if r.ID == "" {
		t.Fatalf("deferred request %s has no id:\n%s", path, data)
	}
	return r
}
