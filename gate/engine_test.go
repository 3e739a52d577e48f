package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/sandbox"
)

// syncRunner is a fakeRunner safe for concurrent requests.
type syncRunner struct {
	mu  sync.Mutex
	ran []string
}

func (r *syncRunner) Run(_ context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ran = append(r.ran, c.Argv[0])
	return &sandbox.Result{Layers: []string{"fake"}}, nil
}

func (r *syncRunner) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ran)
}

// testHost is a home, configuration layers and a workspace in temporary
// directories, read through an environment of its own.
type testHost struct {
	env       map[string]string
	user      string // the user layer
	workspace string
	sub       string // a directory inside the workspace
}

func newTestHost(t testing.TB) *testHost {
	t.Helper()
	root := realTempDir(t, "host")
	h := &testHost{
		env: map[string]string{
			"HOME":                     filepath.Join(root, "home"),
			"XDG_CONFIG_HOME":          filepath.Join(root, "config"),
			"XDG_STATE_HOME":           filepath.Join(root, "state"),
			"XDG_CACHE_HOME":           filepath.Join(root, "cache"),
			"GATEDEXEC_SYSTEM_DIR":     filepath.Join(root, "etc"),
			"GATEDEXEC_NO_RULES_CACHE": "1",
		},
		user:      filepath.Join(root, "config", "gatedexec"),
		workspace: filepath.Join(root, "ws"),
	}
	h.sub = filepath.Join(h.workspace, "sub")
	for _, d := range []string{h.env["HOME"], filepath.Join(h.user, "rules"), h.sub} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *testHost) getenv(k string) string { return h.env[k] }

func (h *testHost) write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// trust trusts the workspace's own layer, as `gatedexec trust` does.
func (h *testHost) trust(t *testing.T) {
	t.Helper()
	d, err := config.DefaultDirs(h.getenv, h.workspace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&config.TrustStore{Dir: d.TrustDir()}).Trust(h.workspace, ""); err != nil {
		t.Fatal(err)
	}
}

func (h *testHost) gate(t *testing.T, flags Flags, runner sandbox.Runner) *Gate {
	t.Helper()
	g, err := New(Config{Workspace: h.workspace, Flags: flags, Getenv: h.getenv, Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// Check and Run are two calls of one engine: for every request, the
// decision and the action Check reports are the ones Run takes, in the
// workspace layer a Cwd inside the workspace reads and under the
// approval policy config.toml sets.
func TestCheckAgreesWithRun(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `
prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["make"], decision="allow")
`)
	h.write(t, filepath.Join(h.workspace, ".gatedexec", "rules", "ws.rules"), `prefix_rule(pattern=["frobnicate"], decision="forbidden")`)
	h.trust(t)
	requests := []Request{
		{Argv: []string{"make", "all"}},
		{Argv: []string{"git", "push"}, Cwd: h.sub},
		{Argv: []string{"frobnicate"}, Cwd: h.sub, Workspace: h.workspace},
		{Argv: []string{"mytool", "x"}},
		{Argv: []string{"ls | wc -l"}, Shell: true},
		{Argv: []string{"echo $(id) > out"}, Shell: true, Cwd: h.sub},
		{Argv: []string{"bash", "-c", "rm -rf / && make"}},
		{Argv: []string{"cat", "README"}},
	}
	for _, policy := range []string{"", "untrusted", "on-request", "on-failure", "never"} {
		cfgFile := filepath.Join(h.user, "config.toml")
		if policy == "" {
			os.Remove(cfgFile)
		} else {
			h.write(t, cfgFile, fmt.Sprintf("approval_policy = %q\n", policy))
		}
		runner := &syncRunner{}
		g := h.gate(t, Flags{Approver: "deny"}, runner)
		for _, req := range requests {
			t.Run(fmt.Sprintf("%s/%q", policy, req.Argv), func(t *testing.T) {
				chk, err := g.Check(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				before := runner.count()
				res, err := g.Run(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if res.Decision != chk.Decision.String() || res.Action != chk.Action {
					t.Errorf("run: %s/%s, check: %s/%s", res.Decision, res.Action, chk.Decision, chk.Action)
				}
				// With the deny approver only "run" runs.
				if ran := runner.count() > before; ran != (chk.Action == approval.Run) {
					t.Errorf("ran %v under action %s", ran, chk.Action)
				}
			})
		}
	}
	// The workspace layer is what forbids frobnicate: without it (another
	// workspace) the same command is not forbidden.
	g := h.gate(t, Flags{}, &syncRunner{})
	if _, err := g.Check(context.Background(), Request{Argv: []string{"frobnicate"}, Workspace: h.env["HOME"]}); err == nil {
		t.Error("a request for another workspace was served with this workspace's layers")
	}
}

// Many requests at once on one Gate: the race detector checks the shared
// state (policy, profiles, approver, audit log, session store).
func TestGateConcurrentRun(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `
prefix_rule(pattern=["make"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt")
`)
	audit := filepath.Join(h.env["HOME"], "audit.jsonl")
	runner := &syncRunner{}
	g := h.gate(t, Flags{Approver: "deny", AuditLog: audit, Session: "s1"}, runner)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, argv := range [][]string{{"make", fmt.Sprint(i)}, {"git", "push"}, {"rm", "-rf", "/"}} {
				res, err := g.Run(context.Background(), Request{Argv: argv, Cwd: h.sub})
				if err == nil && (res.Ran != (argv[0] == "make")) {
					err = fmt.Errorf("%q ran %v", argv, res.Ran)
				}
				if err != nil {
					errs <- err
				}
			}
			if _, err := g.Check(context.Background(), Request{Argv: []string{"make"}}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if runner.count() != n {
		t.Errorf("ran %d commands, want %d", runner.count(), n)
	}
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	// make: a decision and an outcome; the others: a decision each.
	if lines := countLines(b); lines != 4*n {
		t.Errorf("audit log has %d records, want %d", lines, 4*n)
	}
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

// A Gate reloads its configuration when a file it came from changes: with
// Watch at the next request, and by Refresh or Reload when asked. A bad
// new configuration leaves the old one in force.
func TestGateReload(t *testing.T) {
	h := newTestHost(t)
	rules := filepath.Join(h.user, "rules", "user.rules")
	h.write(t, rules, `prefix_rule(pattern=["deploy"], decision="allow")`)
	decision := func(g *Gate) string {
		t.Helper()
		res, err := g.Check(context.Background(), Request{Argv: []string{"deploy"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Decision.String()
	}
	g := h.gate(t, Flags{}, &syncRunner{})
	if g.state.Load().print != "" {
		t.Fatal("a Gate without Watch took the fingerprint of its files")
	}
	// Without Watch nothing was fingerprinted: the first Refresh cannot
	// tell and reloads, the next one compares.
	if changed, err := g.Refresh(); !changed || err != nil {
		t.Fatalf("first Refresh without Watch = %v, %v; want a reload", changed, err)
	}
	if changed, err := g.Refresh(); changed || err != nil {
		t.Fatalf("Refresh of unchanged files = %v, %v", changed, err)
	}
	h.write(t, rules, `prefix_rule(pattern=["deploy"], decision="forbidden")`)
	bump(t, rules)
	if got := decision(g); got != "allow" {
		t.Fatalf("without Watch or Refresh: %s, want the configuration read at New (allow)", got)
	}
	if changed, err := g.Refresh(); !changed || err != nil {
		t.Fatalf("Refresh after a change = %v, %v", changed, err)
	}
	if got := decision(g); got != "forbidden" {
		t.Fatalf("after Refresh: %s, want forbidden", got)
	}

	// Watch: a new rules file in a layer, then a new config.toml.
	w, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &syncRunner{}, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if changed, err := w.Refresh(); changed || err != nil {
		t.Fatalf("Refresh of unchanged files with Watch = %v, %v", changed, err)
	}
	h.write(t, filepath.Join(h.user, "rules", "more.rules"), `prefix_rule(pattern=["ship"], decision="prompt")`)
	res, err := w.Check(context.Background(), Request{Argv: []string{"ship", "it"}})
	if err != nil || res.Decision.String() != "prompt" {
		t.Fatalf("after a new rules file: %v, %v; want prompt", res, err)
	}
	h.write(t, filepath.Join(h.user, "config.toml"), `approval_policy = "untrusted"`)
	res, err = w.Check(context.Background(), Request{Argv: []string{"mytool"}})
	if err != nil || res.Action != approval.Ask {
		t.Fatalf("after config.toml: %v, %v; want ask", res, err)
	}

	// A broken file is reported and the last good configuration stays.
	h.write(t, rules, `prefix_rule(pattern=["deploy"], decision="sometimes")`)
	bump(t, rules)
	if err := g.Reload(); err == nil {
		t.Fatal("Reload of a bad rules file succeeded")
	}
	if got := decision(g); got != "forbidden" {
		t.Fatalf("after a failed Reload: %s, want the last good configuration (forbidden)", got)
	}
}

// bump moves path's modification time, so that a rewrite within the
// file system's time granularity is seen.
func bump(t *testing.T, path string) {
	t.Helper()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// ctxRunner records whether the context of the run was already ended.
type ctxRunner struct{ ended bool }

func (r *ctxRunner) Run(ctx context.Context, _ *sandbox.Command) (*sandbox.Result, error) {
	r.ended = ctx.Err() != nil
	return &sandbox.Result{}, nil
}

// ctxApprover answers as its context says: aborted once it has ended.
type ctxApprover struct{}

func (ctxApprover) Approve(ctx context.Context, r *approval.Request) (approval.Response, error) {
	if ctx.Err() != nil {
		return approval.Response{ID: r.ID, Outcome: approval.Abort}, ctx.Err()
	}
	return approval.Response{ID: r.ID, Outcome: approval.Approved}, nil
}

// A signal that ends a pending approval (the CLI's ApprovalContext) does
// not end a command already running: the backend forwards the signal and
// the command decides (TestWorkloads' sigint).
func TestApprovalContextIsOnlyTheApprovals(t *testing.T) {
	o, _, _, _ := newOptions(t, "touch", "f")
	runner := &ctxRunner{}
	o.Runner = runner
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	o.ApprovalContext = ended
	res, err := o.run(context.Background())
	if err != nil || !res.Ran || runner.ended {
		t.Fatalf("allowed command: ran %v, run context ended %v, err %v", res != nil && res.Ran, runner.ended, err)
	}
	// Run's own context is the library caller's, and ends the command.
	runner.ended = false
	o.ApprovalContext = nil
	if _, err := o.run(ended); err != nil || !runner.ended {
		t.Fatalf("Run's ended context did not reach the command's run (err %v)", err)
	}
	o2, runner2, _, _ := newOptions(t, "git", "push")
	o2.Approver, o2.ApprovalContext = ctxApprover{}, ended
	res, err = o2.run(context.Background())
	if err != nil || res.Ran || len(runner2.profiles) != 0 || res.Approval.Outcome == approval.Approved {
		t.Fatalf("prompt under an ended approval context: ran %v, outcome %s, err %v", res.Ran, res.Approval.Outcome, err)
	}
}
