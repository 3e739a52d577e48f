package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/sandbox"
)

// fakeRunner records what it was asked to run and answers from results.
type fakeRunner struct {
	results  []*sandbox.Result
	profiles []*sandbox.Profile
	noTail   []bool // each command's NoStderrTail
}

func (f *fakeRunner) Run(_ context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	f.profiles = append(f.profiles, c.Profile)
	f.noTail = append(f.noTail, c.NoStderrTail)
	if len(f.results) == 0 {
		return &sandbox.Result{Layers: []string{"fake"}}, nil
	}
	r := f.results[0]
	f.results = f.results[1:]
	return r, nil
}

// fakeApprover answers every request with outcome and records the kinds.
type fakeApprover struct {
	outcome approval.Outcome
	kinds   []approval.Kind
	asked   []*approval.Request
}

func (a *fakeApprover) Approve(_ context.Context, r *approval.Request) (approval.Response, error) {
	a.kinds = append(a.kinds, r.Kind)
	a.asked = append(a.asked, r)
	return approval.Response{ID: r.ID, Outcome: a.outcome}, nil
}

const testRules = `
prefix_rule(pattern=["rm"], decision="forbidden")
prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["make"], decision="allow", profile="read-only")
prefix_rule(pattern=["touch"], decision="allow")
`

func newOptions(t *testing.T, argv ...string) (*call, *fakeRunner, *fakeApprover, string) {
	t.Helper()
	pol, err := execpolicy.Loader{}.Load("test.rules", []byte(testRules))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	runner := &fakeRunner{}
	approver := &fakeApprover{outcome: approval.Denied}
	o := &call{
		Request: Request{Argv: argv, Cwd: ws, Workspace: ws}, Policy: pol, PolicyDigest: pol.Digest,
		Approval: approval.OnRequest, Approver: approver, ApproverID: "exec",
		Profile: func(name string) (*sandbox.Profile, error) {
			if name == "missing" {
				return nil, errors.New("no such profile")
			}
			return &sandbox.Profile{Name: name, ReadAll: true, Write: []string{ws}, Network: sandbox.NetworkOff}, nil
		},
		DefaultProfile: "workspace-write",
		Runner:         runner,
	}
	return o, runner, approver, ws
}

func TestRunDecisions(t *testing.T) {
	tests := []struct {
		name     string
		argv     []string
		answer   approval.Outcome
		ran      bool
		profile  string
		asked    int
		decision string
	}{
		{"forbidden runs nothing and asks no one", []string{"rm", "-rf", "x"}, approval.Approved, false, "", 0, "forbidden"},
		{"prompt denied", []string{"git", "push"}, approval.Denied, false, "", 1, "prompt"},
		{"prompt approved", []string{"git", "push"}, approval.Approved, true, "workspace-write", 1, "prompt"},
		{"allow runs in the rule's profile", []string{"make", "all"}, approval.Denied, true, "read-only", 0, "allow"},
		{"allow runs in the default profile", []string{"touch", "f"}, approval.Denied, true, "workspace-write", 0, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, runner, approver, _ := newOptions(t, tt.argv...)
			approver.outcome = tt.answer
			res, err := o.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tt.decision || res.Ran != tt.ran || len(approver.kinds) != tt.asked {
				t.Fatalf("decision %s ran %v asked %d; want %s %v %d", res.Decision, res.Ran, len(approver.kinds), tt.decision, tt.ran, tt.asked)
			}
			if tt.ran != (len(runner.profiles) == 1) {
				t.Fatalf("runner called %d times", len(runner.profiles))
			}
			if tt.ran && runner.profiles[0].Name != tt.profile {
				t.Errorf("profile %s, want %s", runner.profiles[0].Name, tt.profile)
			}
			if tt.ran && runner.noTail[0] {
				// The tail is where a denial is found (DetectDenials).
				t.Errorf("run asked for no stderr tail")
			}
			if !tt.ran && res.ExitCode != nil {
				t.Errorf("exit code %d for a command that did not run, want nil", *res.ExitCode)
			}
		})
	}
}

func TestRunBadProfileIsConfigError(t *testing.T) {
	o, runner, _, ws := newOptions(t, "touch", "f")
	o.DefaultProfile = "missing"
	logPath := filepath.Join(ws, "audit.jsonl")
	log, err := approval.OpenLog(logPath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	o.Audit = log
	if _, err := o.run(context.Background()); !errors.Is(err, ErrConfig) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
	if len(runner.profiles) != 0 {
		t.Fatal("the command ran without a profile")
	}
	// The refusal is a decision too, and is audited.
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 1 || !strings.Contains(string(b), `"profile":"missing"`) || !strings.Contains(string(b), "no such profile") {
		t.Errorf("audit log %q; want one record naming the profile and its error", b)
	}
}

func TestRunProtectsControlPaths(t *testing.T) {
	o, runner, _, ws := newOptions(t, "touch", "f")
	rules := filepath.Join(ws, "home", ".config", "gatedexec")
	o.Control = []string{rules, "/etc/gatedexec"}
	if _, err := o.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := runner.profiles[0]; !slices.Contains(p.Protect, rules) || slices.Contains(p.Protect, "/etc/gatedexec") {
		t.Errorf("Protect = %q; want %s (inside the workspace) and not /etc/gatedexec", p.Protect, rules)
	}
}

func TestRunAuditFailureRunsNothing(t *testing.T) {
	o, runner, _, ws := newOptions(t, "touch", "f")
	log, err := approval.OpenLog(filepath.Join(ws, "audit.jsonl"), false)
	if err != nil {
		t.Fatal(err)
	}
	log.Close() // every write now fails
	o.Audit = log
	if _, err := o.run(context.Background()); !errors.Is(err, ErrAudit) {
		t.Fatalf("err = %v, want ErrAudit", err)
	}
	if len(runner.profiles) != 0 {
		t.Fatal("the command ran unaudited")
	}
}

func TestRunUnrecordableApprovalIsAudited(t *testing.T) {
	// Unmatched, so an "always" answer proposes an allow rule.
	o, runner, approver, ws := newOptions(t, "mytool", "x")
	o.Approval, approver.outcome = approval.Untrusted, approval.ApprovedAlways
	blocker := filepath.Join(ws, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o.AmendFile = filepath.Join(blocker, "default.rules") // cannot be created
	logPath := filepath.Join(ws, "audit.jsonl")
	log, err := approval.OpenLog(logPath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	o.Audit = log
	if _, err := o.run(context.Background()); err == nil || errors.Is(err, ErrAudit) {
		t.Fatalf("err = %v, want the failure to write the approved rule", err)
	}
	if len(approver.asked) != 1 || len(runner.profiles) != 0 {
		t.Fatalf("asked %d, ran %d; want asked once and nothing run", len(approver.asked), len(runner.profiles))
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("audit log has %d records, want 1: %s", len(lines), b)
	}
	var rec struct {
		Outcome approval.Outcome `json:"outcome"`
		Exit    *int             `json:"exit"`
		Error   string           `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Outcome != approval.ApprovedAlways || rec.Exit != nil || !strings.Contains(rec.Error, "writing the approved rule") {
		t.Errorf("audit record %s; want outcome approved_always, no exit, and the write error", lines[0])
	}
}

func TestRunEscalation(t *testing.T) {
	outside := realTempDir(t, "out")
	denied := &sandbox.Result{ExitCode: 1, Layers: []string{"landlock-v7"},
		StderrTail: []byte("touch: cannot touch '" + outside + "/f': Permission denied\n")}
	tests := []struct {
		name      string
		policy    approval.Policy
		answer    approval.Outcome
		runs      int
		escalated bool
	}{
		{"on-failure, approved", approval.OnFailure, approval.Approved, 2, true},
		{"on-failure, refused", approval.OnFailure, approval.Denied, 1, false},
		{"on-failure, aborted", approval.OnFailure, approval.Abort, 1, false},
		{"on-failure, deferred", approval.OnFailure, approval.Deferred, 1, false},
		{"on-request only reports", approval.OnRequest, approval.Approved, 1, false},
		{"never only reports", approval.Never, approval.Approved, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, runner, approver, _ := newOptions(t, "touch", filepath.Join(outside, "f"))
			o.Approval, approver.outcome = tt.policy, tt.answer
			runner.results = []*sandbox.Result{denied}
			res, err := o.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(runner.profiles) != tt.runs || res.Escalated != tt.escalated {
				t.Fatalf("runs %d escalated %v; want %d %v", len(runner.profiles), res.Escalated, tt.runs, tt.escalated)
			}
			if tt.policy == approval.OnFailure {
				if len(approver.asked) != 1 || approver.asked[0].Kind != approval.KindEscalation ||
					approver.asked[0].Escalation != "write access to "+outside {
					t.Fatalf("approver asked %+v, want one escalation for write access to %s", approver.asked, outside)
				}
				// The result tells the host what became of the escalation
				// (an abort ends its turn) and which id resumes it.
				if res.Approval.Outcome != tt.answer || res.RequestID != approver.asked[0].ID {
					t.Errorf("result approval %+v request %s; want %s for escalation %s", res.Approval, res.RequestID, tt.answer, approver.asked[0].ID)
				}
			} else if len(approver.asked) != 0 {
				t.Fatalf("approver asked %d times under %s", len(approver.asked), tt.policy)
			}
			if tt.escalated {
				if !slices.Contains(runner.profiles[1].Write, outside) || slices.Contains(runner.profiles[0].Write, outside) {
					t.Errorf("writes: first %q, re-run %q; want %s only in the re-run", runner.profiles[0].Write, runner.profiles[1].Write, outside)
				}
				if res.ExitCode == nil || *res.ExitCode != 0 || len(res.Denials) != 0 {
					t.Errorf("after the re-run: exit %v denials %v", res.ExitCode, res.Denials)
				}
			} else if len(res.Denials) != 1 || res.Denials[0].Path != filepath.Join(outside, "f") {
				t.Errorf("denials %+v, want the write to %s/f", res.Denials, outside)
			}
		})
	}
}

// realTempDir makes a directory named name in a temporary directory and
// returns its path with symlinks resolved, as escalation plans name it.
func realTempDir(t testing.TB, name string) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunAuditsWhatWasAsked checks that the audit log says what an
// escalation asked for and why an approval was refused: a security team
// reading it must see what access was granted or refused, not only that
// something was.
func TestRunAuditsWhatWasAsked(t *testing.T) {
	outside := realTempDir(t, "out")
	o, runner, approver, ws := newOptions(t, "touch", filepath.Join(outside, "f"))
	o.Approval, approver.outcome = approval.OnFailure, approval.Denied
	runner.results = []*sandbox.Result{{ExitCode: 1, StderrTail: []byte("touch: cannot touch '" + outside + "/f': Permission denied\n")}}
	logPath := filepath.Join(ws, "audit.jsonl")
	log, err := approval.OpenLog(logPath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	o.Audit = log
	o.Approve = []string{"0123"} // names no request: refuses the exec request
	o.Argv = []string{"git", "push"}
	if _, err := o.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	o.Approve = nil
	o.Argv = []string{"touch", filepath.Join(outside, "f")}
	if _, err := o.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	type record struct {
		Kind       approval.Kind    `json:"kind"`
		Outcome    approval.Outcome `json:"outcome"`
		Reason     string           `json:"reason"`
		Escalation string           `json:"escalation"`
	}
	var recs []record
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var r record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 4 {
		t.Fatalf("audit log has %d records, want 4 (refused push; touch decided, ran, escalation refused): %s", len(recs), b)
	}
	if r := recs[0]; r.Outcome != approval.Denied || !strings.Contains(r.Reason, "mismatched approval id") {
		t.Errorf("refused exec request audited as %+v, want denied with the reason", r)
	}
	if r := recs[3]; r.Kind != approval.KindEscalation || r.Outcome != approval.Denied || r.Escalation != "write access to "+outside {
		t.Errorf("refused escalation audited as %+v, want denied write access to %s", r, outside)
	}
}

// TestRunRequestIDBindsResolvedProfile checks that a request id (and so a
// deferred --approve) changes with what the profile grants, though its
// name stays, and not with --timeout, which grants nothing.
func TestRunRequestIDBindsResolvedProfile(t *testing.T) {
	id := func(write string, timeout time.Duration) string {
		o, _, approver, _ := newOptions(t, "git", "push")
		approver.outcome = approval.Deferred
		o.Timeout = timeout
		o.Profile = func(name string) (*sandbox.Profile, error) {
			return &sandbox.Profile{Name: name, ReadAll: true, Write: []string{write}, Network: sandbox.NetworkOff}, nil
		}
		o.Cwd = "/w"
		res, err := o.run(context.Background())
		if err != nil || res.Request == nil {
			t.Fatalf("Run = %+v, %v; want a deferred request", res, err)
		}
		return res.RequestID
	}
	base := id("/w", 0)
	if got := id("/", 0); got == base {
		t.Errorf("profile writing / has the id of one writing /w (%s)", got)
	}
	if got := id("/w", time.Minute); got != base {
		t.Errorf("--timeout changed the request id: %s, want %s", got, base)
	}
}

// A request's timeout replaces the profile's, unless it comes from
// someone the profile's limits bind: then it only shortens one.
func TestRequestTimeout(t *testing.T) {
	const limit = time.Minute
	cases := []struct {
		req         Request
		limit, want time.Duration
	}{
		{Request{}, limit, limit},
		{Request{Timeout: time.Hour}, limit, time.Hour},
		{Request{Timeout: time.Second}, 0, time.Second},
		{Request{Timeout: time.Hour, TimeoutOnlyShortens: true}, limit, limit},
		{Request{Timeout: time.Second, TimeoutOnlyShortens: true}, limit, time.Second},
		{Request{Timeout: time.Hour, TimeoutOnlyShortens: true}, 0, time.Hour},
		{Request{Timeout: -time.Second, TimeoutOnlyShortens: true}, limit, limit},
	}
	for _, c := range cases {
		if got := c.req.timeout(c.limit); got != c.want {
			t.Errorf("%+v with a limit of %v: %v, want %v", c.req, c.limit, got, c.want)
		}
	}
}

// On an agent's terminal the approver is never tty: not by default, and
// not when configured, since the model is who would answer there.
func TestAgentTerminalNeverAsksTheTTY(t *testing.T) {
	h := newTestHost(t)
	for _, c := range []struct {
		approver, want string
		agent          bool
	}{
		{"", "tty", false},
		{"", "deny", true},
		{"tty", "deny", true},
		{"exec:true", "exec", true},
	} {
		g, err := New(Config{Workspace: h.workspace, Flags: Flags{Approver: c.approver}, Getenv: h.getenv, Interactive: true, AgentTerminal: c.agent})
		if err != nil {
			t.Fatal(err)
		}
		if got := g.ApproverName(); got != c.want {
			t.Errorf("approver %q, agent terminal %v: %s, want %s", c.approver, c.agent, got, c.want)
		}
		g.Close()
	}
}

// envRunner records the environment of each command it is asked to run.
// envRunner records the environment each command would get from a
// runner, after a deny of deny.
type envRunner struct {
	deny []string
	envs [][]string
}

func (r *envRunner) Run(_ context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	r.envs = append(r.envs, sandbox.SetEnv(sandbox.ScrubEnv(c.Env, r.deny), c.SetEnv))
	return &sandbox.Result{Layers: []string{"fake"}}, nil
}

// On an agent's terminal the pagers a command starts are cat and less is
// in its secure mode, whatever the caller's environment said: a pager
// takes commands from the terminal the model types into. Elsewhere the
// environment is the caller's.
func TestAgentTerminalEnv(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `prefix_rule(pattern=["git", "log"], decision="allow")`)
	env := []string{"PATH=/usr/bin:/bin", "PAGER=less", "GIT_PAGER=less -R", "LESSSECURE=0", "LESSSECURE_ALLOW=!", "HOME=/h"}
	for _, agent := range []bool{false, true} {
		r := &envRunner{}
		if agent {
			// A profile's env_deny cannot take the forced values away.
			r.deny = []string{"LESS*", "*PAGER"}
		}
		g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Runner: r, AgentTerminal: agent, Flags: Flags{Approver: "deny"}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := g.Run(context.Background(), Request{Argv: []string{"git", "log"}, Env: env})
		g.Close()
		if err != nil || !res.Ran || len(r.envs) != 1 {
			t.Fatalf("agent terminal %v: ran %v, err %v", agent, res != nil && res.Ran, err)
		}
		got := map[string][]string{}
		for _, kv := range r.envs[0] {
			k, v, _ := strings.Cut(kv, "=")
			got[k] = append(got[k], v)
		}
		want := map[string]string{"PAGER": "less", "GIT_PAGER": "less -R", "LESSSECURE": "0", "PATH": "/usr/bin:/bin", "HOME": "/h"}
		if agent {
			want = map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat", "SYSTEMD_PAGER": "cat", "LESSSECURE": "1", "LESSSECURE_ALLOW": "",
				"PATH": "/usr/bin:/bin", "HOME": "/h"}
		}
		for k, v := range want {
			if len(got[k]) != 1 || got[k][0] != v {
				t.Errorf("agent terminal %v: %s=%q, want exactly %q", agent, k, got[k], v)
			}
		}
	}
}

// Every record of a run judged as on an agent's terminal says so, since
// that judgment differs (rules replay must judge the record the same
// way); a run elsewhere writes no agent_terminal key, so its records are
// what they were before the field existed.
func TestAgentTerminalAudited(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `
prefix_rule(pattern=["env"], decision="allow")
prefix_rule(pattern=["git"], decision="allow")
`)
	for _, c := range []struct {
		agent bool
		// decisions are those of the records of git log (decided, then
		// ran) and of env -u PAGER git log, which on an agent's terminal
		// prompts (it unsets what sets the pager) and the deny approver
		// refuses: one record.
		decisions []string
	}{
		{false, []string{"allow", "allow", "allow", "allow"}},
		{true, []string{"allow", "allow", "prompt"}},
	} {
		audit := filepath.Join(h.env["HOME"], fmt.Sprintf("audit-%v.jsonl", c.agent))
		g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &fakeRunner{}, AgentTerminal: c.agent,
			Flags: Flags{Approver: "deny", AuditLog: audit}})
		if err != nil {
			t.Fatal(err)
		}
		for _, argv := range [][]string{{"git", "log"}, {"env", "-u", "PAGER", "git", "log"}} {
			if _, err := g.Run(context.Background(), Request{Argv: argv}); err != nil {
				t.Fatalf("agent terminal %v: %q: %v", c.agent, argv, err)
			}
		}
		g.Close()
		b, err := os.ReadFile(audit)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		var decisions []string
		for _, l := range lines {
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			decisions = append(decisions, r["decision"].(string))
			v, ok := r["agent_terminal"]
			switch {
			case c.agent && v != true:
				t.Errorf("agent terminal: record without agent_terminal:true: %s", l)
			case !c.agent && ok:
				t.Errorf("no agent terminal: record with agent_terminal: %s", l)
			}
		}
		if !slices.Equal(decisions, c.decisions) {
			t.Errorf("agent terminal %v: decisions %q, want %q", c.agent, decisions, c.decisions)
		}
	}
}
