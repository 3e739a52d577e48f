//go:build linux

package test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentRules are the rules the agent front-end tests share.
const agentRules = `prefix_rule(pattern=["echo"], decision="allow")
prefix_rule(pattern=["true"], decision="allow")
prefix_rule(pattern=["touch"], decision="allow")
prefix_rule(pattern=["printf"], decision="prompt", justification="printf needs a person's yes")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="never delete trees")
`

// mcpOutput is run_command's structured result.
type mcpOutput struct {
	Decision, Action string
	Approval         struct{ By, Outcome, Reason string }
	Ran              bool
	ExitCode         int  `json:"exit_code"`
	TimedOut         bool `json:"timed_out"`
	Stdout, Stderr   string
	StdoutTruncated  bool `json:"stdout_truncated"`
	Denials          []struct{ Kind, Path string }
	Escalated        bool
	Layers           []string
	Error            string
}

// mcpClient is a client session with `gatedexec mcp` running on f.
type mcpClient struct {
	cs *mcp.ClientSession
	// elicited are the messages the server asked the user.
	mu       sync.Mutex
	elicited []string
}

// startMCP starts `gatedexec mcp` with args on the fixture's workspace;
// answer, when set, is the user's answer to every elicitation (the
// client then declares the capability).
func startMCP(t *testing.T, f gateFixture, answer func(msg string) *mcp.ElicitResult, args ...string) *mcpClient {
	t.Helper()
	c := &mcpClient{}
	opts := &mcp.ClientOptions{}
	if answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.mu.Lock()
			c.elicited = append(c.elicited, req.Params.Message)
			c.mu.Unlock()
			return answer(req.Params.Message), nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cmd := exec.Command(gatedexecBin, append([]string{"mcp", "-r", f.rules, "-w", f.ws, "-C", f.ws}, args...)...)
	cmd.Env, cmd.Dir, cmd.Stderr = f.env, f.ws, os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to gatedexec mcp: %v", err)
	}
	c.cs = cs
	t.Cleanup(func() { cs.Close() })
	return c
}

// call calls run_command and decodes its structured result.
func (c *mcpClient) call(t *testing.T, args map[string]any) mcpOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: args})
	if err != nil {
		t.Fatalf("run_command %v: %v", args, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out mcpOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return out
}

func answerWith(decision string) func(string) *mcp.ElicitResult {
	return func(string) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}
	}
}

// auditRecords counts the audit log's records.
func auditRecords(t *testing.T, path string) int {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	defer fh.Close()
	n := 0
	for sc := bufio.NewScanner(fh); sc.Scan(); n++ {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("audit record %q", sc.Text())
		}
	}
	return n
}

// An allowed command runs and returns its output; a forbidden one does
// not run and says which rule forbade it; a long output is bounded with
// a mark; every call is audited.
func TestMCPRunCommand(t *testing.T) {
	f := newGateFixture(t, agentRules)
	c := startMCP(t, f, nil, "--max-output", "1000")
	out := c.call(t, map[string]any{"command": "echo hello; echo oops >&2"})
	if !out.Ran || out.ExitCode != 0 || out.Stdout != "hello\n" || out.Stderr != "oops\n" || out.Decision != "allow" {
		t.Errorf("allowed command: %+v", out)
	}
	if len(out.Layers) == 0 {
		t.Errorf("allowed command ran with no sandbox layer: %+v", out)
	}
	n := auditRecords(t, f.audit)
	if n == 0 {
		t.Error("an allowed call was not audited")
	}
	out = c.call(t, map[string]any{"command": "echo x && rm -rf " + f.ws})
	if out.Ran || out.Decision != "forbidden" || out.Action != "deny" || !strings.Contains(out.Approval.Reason, "rm -rf") {
		t.Errorf("forbidden command: %+v", out)
	}
	if _, err := os.Stat(f.ws); err != nil {
		t.Fatal("the forbidden command ran")
	}
	if m := auditRecords(t, f.audit); m <= n {
		t.Error("a forbidden call was not audited")
	}
	out = c.call(t, map[string]any{"command": "head -c 5000 /dev/zero | tr '\\0' a; echo END", "cwd": "."})
	if !out.StdoutTruncated || !strings.Contains(out.Stdout, "bytes of output left out") || !strings.HasSuffix(out.Stdout, "END\n") || len(out.Stdout) > 1100 {
		t.Errorf("long output (%d bytes) truncated %v: %.200q", len(out.Stdout), out.StdoutTruncated, out.Stdout)
	}
	n = auditRecords(t, f.audit)
	out = c.call(t, map[string]any{"command": "gatedexec run -- echo nested"})
	if out.Ran || out.Action != "deny" || out.Approval.By != "policy" {
		t.Errorf("a command running gatedexec itself: %+v", out)
	}
	if auditRecords(t, f.audit) <= n {
		t.Error("a call refused for running gatedexec itself was not audited")
	}
	out = c.call(t, map[string]any{"command": "sleep 5", "timeout": 0.2})
	if !out.TimedOut {
		t.Errorf("timeout: %+v", out)
	}
	n = auditRecords(t, f.audit)
	for _, args := range []map[string]any{
		{"command": "touch bad", "approve": "yes"},
		{"Command": "touch bad"},
		{"command": []string{"touch", "bad"}},
		{"command": "touch bad", "timeout": "5"},
		{"cwd": "."},
	} {
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: args})
		if err != nil || !res.IsError || res.StructuredContent != nil {
			t.Errorf("arguments %v: %v %+v; want a tool error", args, err, res)
		}
	}
	if _, err := os.Stat(filepath.Join(f.ws, "bad")); err == nil || auditRecords(t, f.audit) != n {
		t.Error("a call with bad arguments ran or was judged")
	}
}

// The model's timeout may cut a command short, but a profile's timeout
// is a limit its commands are held to: a longer one from the model does
// not outlast it.
func TestMCPTimeoutOnlyShortens(t *testing.T) {
	f := newGateFixture(t, agentRules)
	prof := filepath.Join(f.dir, "short.toml")
	mustWrite(t, prof, "extends = \"workspace-write\"\n[limits]\ntimeout = \"1s\"\n")
	c := startMCP(t, f, nil, "-p", prof)
	out := c.call(t, map[string]any{"command": "sleep 4; echo outlasted", "timeout": 3600})
	if !out.TimedOut || strings.Contains(out.Stdout, "outlasted") {
		t.Errorf("a model's timeout past the profile's 1s: %+v", out)
	}
	out = c.call(t, map[string]any{"command": "sleep 4; echo outlasted", "timeout": 0.2})
	if !out.TimedOut {
		t.Errorf("a model's timeout under the profile's: %+v", out)
	}
}

// TestMCPKeepsHolders: the server makes the placeholder directories of
// missing protect paths (.gatedexec, .git/hooks) at its first command and
// keeps them for the next ones, which they still protect, and removes
// them when it exits: the workspace is left as it was.
func TestMCPKeepsHolders(t *testing.T) {
	f := newGateFixture(t, agentRules)
	c := startMCP(t, f, nil)
	layer := filepath.Join(f.ws, ".gatedexec")
	var first uint64
	for i := range 3 {
		out := c.call(t, map[string]any{"command": "touch .gatedexec/config.toml"})
		if !out.Ran || out.ExitCode == 0 {
			t.Errorf("call %d wrote in the protected .gatedexec: %+v", i, out)
		}
		fi, err := os.Lstat(layer)
		if err != nil {
			t.Fatalf("after call %d: %v", i, err)
		}
		ino := fi.Sys().(*syscall.Stat_t).Ino
		if i == 0 {
			first = ino
		} else if ino != first {
			t.Errorf("call %d made the holder again (inode %d, was %d)", i, ino, first)
		}
	}
	if err := c.cs.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(f.ws); err != nil || len(entries) != 0 {
		t.Errorf("the workspace holds %v (%v) after the server exited, want nothing", entries, err)
	}
}

// A prompt goes to the client's user through elicitation; so does the
// escalation after a sandbox denial, and the re-run gets the access.
func TestMCPElicitation(t *testing.T) {
	requireFeature(t, doctor(t).Host.LandlockABI > 0, "landlock")
	f := newGateFixture(t, agentRules)
	outside, err := os.MkdirTemp("/var/tmp", "gatedexec-mcp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	approve := answerWith("approve")
	c := startMCP(t, f, func(msg string) *mcp.ElicitResult { return approve(msg) }, "--approval-policy", "on-failure")

	out := c.call(t, map[string]any{"command": "printf 'yes\\n'"})
	if !out.Ran || out.Stdout != "yes\n" || out.Approval.By != "elicitation" {
		t.Errorf("prompted command approved at the client: %+v", out)
	}
	if len(c.elicited) != 1 || !strings.Contains(c.elicited[0], "printf") || !strings.Contains(c.elicited[0], "prompt rule printf") {
		t.Errorf("elicited %q", c.elicited)
	}

	target := filepath.Join(outside, "made")
	out = c.call(t, map[string]any{"command": "touch " + target})
	if !out.Ran || !out.Escalated || out.ExitCode != 0 {
		t.Errorf("escalation approved at the client: %+v", out)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the escalated re-run did not write %s: %v", target, err)
	}
	if last := c.elicited[len(c.elicited)-1]; !strings.Contains(last, "sandbox stopped") || !strings.Contains(last, target) {
		t.Errorf("escalation question %q", last)
	}

	// A prompted command the sandbox then stops asks twice, and runs
	// escalated with both answers.
	second := filepath.Join(outside, "second")
	asked := len(c.elicited)
	out = c.call(t, map[string]any{"command": "printf x > " + second})
	if !out.Ran || !out.Escalated || len(c.elicited) != asked+2 {
		t.Errorf("prompt then escalation (%d questions): %+v", len(c.elicited)-asked, out)
	}
	if b, err := os.ReadFile(second); err != nil || string(b) != "x" {
		t.Errorf("the escalated re-run wrote %q, %v", b, err)
	}

	approve = func(string) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }
	out = c.call(t, map[string]any{"command": "printf 'no\\n'"})
	if out.Ran || out.Approval.Outcome != "denied" {
		t.Errorf("declined at the client: %+v", out)
	}
}

// A client that cannot elicit gets the configured exec approver's answer,
// else a denial; the model has no way to approve.
func TestMCPWithoutElicitation(t *testing.T) {
	f := newGateFixture(t, agentRules)
	c := startMCP(t, f, nil)
	out := c.call(t, map[string]any{"command": "printf 'x\\n'"})
	if out.Ran || out.Approval.Outcome != "denied" || out.Approval.By != "policy" {
		t.Errorf("no elicitation, no exec approver: %+v", out)
	}
	approver := filepath.Join(f.dir, "approve.sh")
	writeScript(t, approver, `#!/bin/sh
id=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
printf '{"id":"%s","outcome":"approved"}\n' "$id"
`)
	c = startMCP(t, f, nil, "--approver", "exec:"+approver)
	out = c.call(t, map[string]any{"command": "printf 'x\\n'"})
	if !out.Ran || out.Approval.By != "exec" {
		t.Errorf("exec approver: %+v", out)
	}
}

// Twenty calls at once each get their own command's result.
func TestMCPConcurrentCalls(t *testing.T) {
	f := newGateFixture(t, agentRules)
	c := startMCP(t, f, nil)
	const n = 20
	outs := make([]mcpOutput, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = c.call(t, map[string]any{"command": fmt.Sprintf("sleep 0.2; echo %d", i)})
		}()
	}
	wg.Wait()
	for i, out := range outs {
		if !out.Ran || out.Stdout != fmt.Sprintf("%d\n", i) {
			t.Errorf("call %d: %+v", i, out)
		}
	}
	if got := auditRecords(t, f.audit); got < n {
		t.Errorf("%d audit records for %d calls", got, n)
	}
}

// An edit of the rules applies to the next call, without a restart.
func TestMCPReloadsRules(t *testing.T) {
	f := newGateFixture(t, agentRules)
	c := startMCP(t, f, nil)
	if out := c.call(t, map[string]any{"command": "echo before"}); !out.Ran {
		t.Fatalf("before the edit: %+v", out)
	}
	edited := strings.Replace(agentRules, `prefix_rule(pattern=["echo"], decision="allow")`,
		`prefix_rule(pattern=["echo"], decision="forbidden", justification="echo is off now")`, 1)
	if err := os.WriteFile(f.rules, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := c.call(t, map[string]any{"command": "echo after"}); out.Ran || out.Decision != "forbidden" {
		t.Errorf("after the edit: %+v", out)
	}
}

// A client that goes away mid-command (its end of the server's stdin
// closed) takes the command's whole process tree with it, and the server
// exits.
func TestMCPDisconnectKillsCommand(t *testing.T) {
	f := newGateFixture(t, agentRules)
	// never runs the background jobs, which other policies ask about.
	_, stdin, cs, exited := startMCPPiped(t, f, "--approval-policy", "never")
	marks := []string{"sleep 424242", "sleep 424243"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command",
		Arguments: map[string]any{"command": "sleep 424242 & (sleep 424243 &) ; wait"}})
	waitSeen(t, marks...)
	stdin.Close()
	waitGone(t, marks...)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Error("the server did not exit after its client went away")
	}
}

// startMCPPiped starts `gatedexec mcp` on the fixture with args and
// connects to it through pipes this test holds: closing stdin is the
// client going away; exited receives the server's end.
func startMCPPiped(t *testing.T, f gateFixture, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, cs *mcp.ClientSession, exited chan error) {
	t.Helper()
	cmd = exec.Command(gatedexecBin, append([]string{"mcp", "-r", f.rules, "-w", f.ws}, args...)...)
	cmd.Env, cmd.Dir, cmd.Stderr = f.env, f.ws, os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	cs, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, cs, exited
}

// hookAnswer feeds a Claude Code PreToolUse event for command to
// `gatedexec hook claude-code` and returns its decision and rewritten
// command.
func hookAnswer(t *testing.T, f gateFixture, agent, command string, extra ...string) (decision, rewritten string, code int) {
	t.Helper()
	return hookAnswerIn(t, f, "default", agent, command, extra...)
}

// hookAnswerIn is hookAnswer for an event in the agent's permission mode.
func hookAnswerIn(t *testing.T, f gateFixture, mode, agent, command string, extra ...string) (decision, rewritten string, code int) {
	t.Helper()
	ev, _ := json.Marshal(map[string]any{
		"session_id": "e2e-session", "transcript_path": "/dev/null", "cwd": f.ws, "permission_mode": mode,
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command},
	})
	cmd := exec.Command(gatedexecBin, append([]string{"hook", agent, "-r", f.rules}, extra...)...)
	cmd.Env, cmd.Dir, cmd.Stdin = f.env, f.ws, strings.NewReader(string(ev))
	out, err := cmd.Output()
	code = exitOf(t, err)
	var ans struct {
		HookSpecificOutput struct {
			PermissionDecision string
			UpdatedInput       struct{ Command string }
		}
	}
	if err := json.Unmarshal(out, &ans); err != nil {
		t.Fatalf("hook answer %q: %v", out, err)
	}
	return ans.HookSpecificOutput.PermissionDecision, ans.HookSpecificOutput.UpdatedInput.Command, code
}

// The hook's rewritten command, run by a shell as the agent would, runs
// the script inside the sandbox: it writes in the workspace, not outside
// it, and is audited as a gatedexec run. A prompted command the person
// approved at the agent's prompt runs without gatedexec asking again.
func TestHookRewriteRunsSandboxed(t *testing.T) {
	requireFeature(t, doctor(t).Host.LandlockABI > 0, "landlock")
	f := newGateFixture(t, agentRules)
	outside, err := os.MkdirTemp("/var/tmp", "gatedexec-hook-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	script := fmt.Sprintf("touch %s/inside; touch %s/outside", f.ws, outside)
	decision, rewritten, code := hookAnswer(t, f, "claude-code", script)
	if decision != "allow" || code != 0 {
		t.Fatalf("hook: %s (exit %d)", decision, code)
	}
	sh := exec.Command("bash", "-c", rewritten)
	sh.Env, sh.Dir = f.env, f.ws
	shOut, _ := sh.CombinedOutput()
	if _, err := os.Stat(filepath.Join(f.ws, "inside")); err != nil {
		t.Errorf("the command did not run: %v\n%s", err, shOut)
	}
	if _, err := os.Stat(filepath.Join(outside, "outside")); err == nil {
		t.Errorf("the command wrote outside the workspace: not sandboxed\n%s", shOut)
	}
	if !strings.Contains(string(shOut), "sandbox denied fs-write "+outside) {
		t.Errorf("no sandbox denial reported:\n%s", shOut)
	}
	var rec struct {
		Argv   []string
		Layers []string
	}
	if err := json.Unmarshal([]byte(lastLine(t, f.audit)), &rec); err != nil || len(rec.Layers) == 0 || rec.Argv[len(rec.Argv)-1] != script {
		t.Errorf("audit record %+v (%v): want the script run under sandbox layers", rec, err)
	}

	// Prompted: the agent asks its user; once they agree the rewritten run
	// is approved by the hook's registration, with no approver of its own.
	decision, rewritten, _ = hookAnswer(t, f, "claude-code", "printf 'approved\\n'")
	if decision != "ask" {
		t.Fatalf("prompted command: %s", decision)
	}
	// A gatedexec inside the sandbox cannot claim the registration: the
	// state directory is read-only there. (The outer profile keeps the
	// host's /tmp, where the fixture's state and rules are.)
	hostTmp := filepath.Join(f.dir, "host-tmp.toml")
	mustWrite(t, hostTmp, "extends = \"workspace-write\"\n[filesystem]\nprivate_tmp = false\n")
	nested := exec.Command(gatedexecBin, "run", "-p", hostTmp, "--approval-policy", "never", "--", "bash", "-c", rewritten+" </dev/null")
	// Without an audit log, which the sandbox keeps read-only too.
	for _, kv := range f.env {
		if !strings.HasPrefix(kv, "GATEDEXEC_AUDIT_LOG=") {
			nested.Env = append(nested.Env, kv)
		}
	}
	nested.Dir = f.ws
	if out, err := nested.CombinedOutput(); exitOf(t, err) != 77 || !strings.Contains(string(out), "needs approval") || strings.Contains(string(out), "approved\n") {
		t.Errorf("a sandboxed gatedexec: exit %d, %q; want its own approver's refusal (77)", exitOf(t, err), out)
	}
	sh = exec.Command("bash", "-c", rewritten+" </dev/null")
	sh.Env, sh.Dir = f.env, f.ws
	if out, err := sh.Output(); err != nil || string(out) != "approved\n" {
		t.Errorf("approved run: %q, %v", out, err)
	}
	// The registration approved one run: the same command again is asked
	// of gatedexec's approver (deny without a terminal).
	sh = exec.Command("bash", "-c", rewritten+" </dev/null")
	sh.Env, sh.Dir = f.env, f.ws
	if err := sh.Run(); exitOf(t, err) != 77 {
		t.Errorf("a second run of a once-approved command: exit %d, want 77", exitOf(t, err))
	}
}

// A registration is the person's answer to one question. When they
// refuse it, the registration stays behind unclaimed; the same command
// asked again in a mode that puts no question to them (bypassPermissions)
// must be refused by gatedexec's own approver, not approved by what was
// left of the refused question.
func TestHookRefusedQuestionApprovesNothingLater(t *testing.T) {
	requireFeature(t, doctor(t).Host.LandlockABI > 0, "landlock")
	f := newGateFixture(t, agentRules)
	const script = "printf 'ran\\n'"
	if decision, _, _ := hookAnswer(t, f, "claude-code", script); decision != "ask" {
		t.Fatalf("prompted command: %s", decision)
	}
	// The person said no: the agent ran nothing. Then prompts are bypassed.
	decision, rewritten, code := hookAnswerIn(t, f, "bypassPermissions", "claude-code", script)
	if decision != "ask" || code != 0 {
		t.Fatalf("prompted command, prompts bypassed: %s (exit %d)", decision, code)
	}
	sh := exec.Command("bash", "-c", rewritten+" </dev/null")
	sh.Env, sh.Dir = f.env, f.ws
	out, err := sh.CombinedOutput()
	if exitOf(t, err) != 77 || strings.Contains(string(out), "ran\n") {
		t.Errorf("run after a refused question: exit %d, %q; want gatedexec's approver's refusal (77)", exitOf(t, err), out)
	}
}

// Codex runs a command on a pty when the model asks (exec_command with
// tty), and the model types into it (write_stdin): the run the hook wrote
// must not ask gatedexec's tty prompt there, which the model would answer.
func TestHookRunNeverAsksTheAgentsTerminal(t *testing.T) {
	requireFeature(t, doctor(t).Host.LandlockABI > 0, "landlock")
	f := newGateFixture(t, agentRules)
	decision, rewritten, code := hookAnswer(t, f, "codex", "printf 'model-approved\\n'")
	if decision != "allow" || code != 0 {
		t.Fatalf("codex, prompted command: %s (exit %d)", decision, code)
	}
	sh := exec.Command("bash", "-c", rewritten)
	sh.Env, sh.Dir = f.env, f.ws
	r := startOnTTY(t, sh)
	typed := false
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(ttyDeadline)
wait:
	for {
		select {
		case err := <-r.exited:
			r.exited <- err
			break wait
		case <-tick.C:
			// The model reads the command's output and answers.
			if !typed && strings.Contains(r.log.String(), lastChoice) {
				r.send(t, "y")
				typed = true
			}
		case <-deadline:
			t.Fatalf("the run did not end; the terminal showed:\n%s", r.log.String())
		}
	}
	code, out := r.wait(t)
	if typed || code != 77 || strings.Contains(out, "model-approved\n") {
		t.Errorf("a prompted run on the agent's terminal: exit %d, prompt shown %v:\n%s\nwant a denial (77) with no prompt", code, typed, out)
	}
}

// lastLine returns the last line of a file.
func lastLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// check, run, the hook and the MCP server are front ends of one engine:
// the same requests get the same action through each.
func TestFrontEndsAgree(t *testing.T) {
	f := newGateFixture(t, agentRules)
	scripts := []string{"echo hi", "printf x", "rm -rf build", "ls | wc -l", "echo $(id)", "true && rm -rf /", "mytool --x"}
	hookAction := map[string]string{"allow": "run", "ask": "ask", "deny": "deny"}
	for _, policy := range []string{"on-request", "untrusted", "never"} {
		c := startMCP(t, f, nil, "--approval-policy", policy)
		for _, s := range scripts {
			t.Run(policy+"/"+s, func(t *testing.T) {
				pol := []string{"--approval-policy", policy}
				cmd := exec.Command(gatedexecBin, append(append([]string{"check", "--shell", "-r", f.rules, "-C", f.ws}, pol...), "--", s)...)
				cmd.Env = f.env
				out, err := cmd.Output()
				if err != nil {
					t.Fatal(err)
				}
				var chk struct{ Action string }
				if err := json.Unmarshal(out, &chk); err != nil {
					t.Fatal(err)
				}
				os.Remove(f.audit)
				run := exec.Command(gatedexecBin, append(append([]string{"run", "--shell", "--approver", "deny", "-r", f.rules, "-C", f.ws}, pol...), "--", s)...)
				run.Env, run.Dir = f.env, f.ws
				run.Run()
				runAction := firstAudit(t, f.audit).Action
				decision, _, _ := hookAnswer(t, f, "claude-code", s, pol...)
				mcpAction := c.call(t, map[string]any{"command": s}).Action
				if runAction != chk.Action || hookAction[decision] != chk.Action || mcpAction != chk.Action {
					t.Errorf("check %s, run %s, hook %s, mcp %s", chk.Action, runAction, decision, mcpAction)
				}
			})
		}
	}
}

// A client of an older protocol (2025-06-18, as most agents speak it)
// gets the prompt as an elicitation/create request in the middle of the
// call, and its answer decides it.
func TestMCPElicitationOlderProtocol(t *testing.T) {
	f := newGateFixture(t, agentRules)
	for _, c := range []struct {
		answer string
		ran    bool
	}{{"approve", true}, {"deny", false}} {
		t.Run(c.answer, func(t *testing.T) {
			cmd := exec.Command(gatedexecBin, "mcp", "-r", f.rules, "-w", f.ws)
			cmd.Env, cmd.Dir, cmd.Stderr = f.env, f.ws, os.Stderr
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Wait() }()
			dec := json.NewDecoder(stdout)
			send := func(v any) {
				b, _ := json.Marshal(v)
				if _, err := stdin.Write(append(b, '\n')); err != nil {
					t.Fatal(err)
				}
			}
			type msg struct {
				ID     any             `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			recv := func() msg {
				var m msg
				if err := dec.Decode(&m); err != nil {
					t.Fatalf("reading the server: %v", err)
				}
				return m
			}
			send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
				"protocolVersion": "2025-06-18", "clientInfo": map[string]any{"name": "old", "version": "1"},
				"capabilities": map[string]any{"elicitation": map[string]any{}},
			}})
			if m := recv(); m.Error != nil {
				t.Fatalf("initialize: %s", m.Error)
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
			send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
				"name": "run_command", "arguments": map[string]any{"command": "printf 'old\\n'"}}})
			m := recv()
			if m.Method != "elicitation/create" {
				t.Fatalf("want an elicitation/create, got %+v", m)
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"action": "accept", "content": map[string]any{"decision": c.answer}}})
			m = recv()
			var res struct{ StructuredContent mcpOutput }
			if err := json.Unmarshal(m.Result, &res); err != nil {
				t.Fatalf("tool result %s: %v", m.Result, err)
			}
			if out := res.StructuredContent; out.Ran != c.ran || (c.ran && out.Stdout != "old\n") {
				t.Errorf("answered %s: %+v", c.answer, out)
			}
		})
	}
}

// The managed layer is a ceiling for the agent front ends too: a user's
// allow rule does not lower a managed prompt to the hook's "allow", a
// managed forbidden rule is the hook's "deny", and through the MCP server
// a prompt without anyone to ask, or a full-access profile the layer does
// not allow, does not run; the MCP calls are in the managed audit log.
func TestManagedFrontEnds(t *testing.T) {
	requireFeature(t, os.Geteuid() == 0, "root (a managed layer must be owned by root)")
	f := newGateFixture(t, agentRules)
	etc := filepath.Join(f.dir, "etc")
	managedLog := filepath.Join(f.dir, "managed.jsonl")
	if err := os.MkdirAll(filepath.Join(etc, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{f.dir, etc, filepath.Join(etc, "rules")} {
		os.Chmod(d, 0o755)
	}
	mustWrite(t, filepath.Join(etc, "config.toml"), "managed = true\napproval_policy = \"on-request\"\naudit_log = \""+managedLog+"\"\n")
	mustWrite(t, filepath.Join(etc, "rules", "managed.rules"), `prefix_rule(pattern=["touch"], decision="prompt")
prefix_rule(pattern=["echo", "secret"], decision="forbidden")
`)
	for _, c := range []struct{ command, want string }{
		{"echo hi", "allow"},
		{"touch made", "ask"}, // agentRules allow touch; the managed prompt stands
		{"echo secret", "deny"},
	} {
		if decision, _, _ := hookAnswer(t, f, "claude-code", c.command); decision != c.want {
			t.Errorf("hook %q: %s, want %s", c.command, decision, c.want)
		}
	}
	mc := startMCP(t, f, nil)
	if out := mc.call(t, map[string]any{"command": "touch made"}); out.Ran {
		t.Errorf("MCP ran a managed prompt with no one to ask: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "made")); err == nil {
		t.Error("made exists")
	}
	full := startMCP(t, f, nil, "-p", "full-access")
	if out := full.call(t, map[string]any{"command": "echo hi"}); out.Ran || !strings.Contains(out.Approval.Reason+out.Error, "allow_full_access") {
		t.Errorf("MCP under -p full-access: %+v, want refused naming allow_full_access", out)
	}
	if out := mc.call(t, map[string]any{"command": "echo hi"}); !out.Ran || !strings.Contains(out.Stdout, "hi") {
		t.Errorf("MCP control: %+v", out)
	}
	log, _ := os.ReadFile(managedLog)
	if !strings.Contains(string(log), `"argv":["bash","-c","touch made"]`) && !strings.Contains(string(log), `touch made`) {
		t.Errorf("the managed audit log lacks the MCP calls:\n%s", log)
	}
}

// `gatedexec mcp` becomes the gatedexec-mcp beside it and no other: a
// gatedexec installed without it says so (125), and none is looked up in
// PATH.
func TestMCPServerBinaryBeside(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, "gatedexec")
	copyExec(t, gatedexecBin, alone)
	elsewhere := t.TempDir()
	copyExec(t, filepath.Join(binDir, "gatedexec-mcp"), filepath.Join(elsewhere, "gatedexec-mcp"))
	cmd := exec.Command(alone, "mcp")
	cmd.Env = append(os.Environ(), "PATH="+elsewhere+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if code := exitOf(t, err); code != 125 || !strings.Contains(string(out), "gatedexec-mcp is not installed beside gatedexec") {
		t.Errorf("exit %d, want 125 naming the missing server:\n%s", code, out)
	}
}

// prestartedOf returns the prestarted sandbox helpers (the one a
// long-lived server starts ahead of its next call) whose parent is ppid.
func prestartedOf(ppid int) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cl), "\x00prestarted\x00") {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// The helper the server starts ahead of its next call ends with the
// server: when its client goes away, and when it is killed outright.
func TestMCPPrestartedHelperEndsWithServer(t *testing.T) {
	for _, kill := range []bool{false, true} {
		cmd, stdin, cs, exited := startMCPPiped(t, newGateFixture(t, agentRules))
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "true"}})
		if err != nil || res.IsError {
			t.Fatalf("run_command: %v %+v", err, res)
		}
		deadline := time.Now().Add(5 * time.Second)
		var helpers []int
		for len(helpers) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			helpers = prestartedOf(cmd.Process.Pid)
		}
		if len(helpers) != 1 {
			t.Fatalf("kill %v: prestarted helpers %v of the server, want 1", kill, helpers)
		}
		if kill {
			cmd.Process.Kill()
		} else {
			stdin.Close()
		}
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			t.Fatalf("kill %v: the server did not exit", kill)
		}
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			// Gone, or a zombie: killed, not yet reaped by the init
			// it was handed to.
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", helpers[0]))
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); err != nil || len(f) > 0 && f[0] == "Z" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("kill %v: the prestarted helper %d outlived the server", kill, helpers[0])
			}
		}
	}
}
