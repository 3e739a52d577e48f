package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestSandboxReadsNoStderrTail: gatedexec sandbox reports no denial found
// in the command's stderr, so it asks the runner for no tail, and a pipe
// on its stderr reaches the command as it is.
func TestSandboxReadsNoStderrTail(t *testing.T) {
	h := newTestHost(t)
	for k, v := range h.env {
		t.Setenv(k, v)
	}
	runner := &fakeRunner{}
	res, err := Sandbox(context.Background(), SandboxRequest{
		Place: Place{Cwd: h.workspace, Workspace: h.workspace}, Argv: []string{"true"},
		Profile: "read-only", Runner: runner,
	})
	if err != nil || res == nil {
		t.Fatalf("Sandbox: %v, %+v", err, res)
	}
	if len(runner.noTail) != 1 || !runner.noTail[0] {
		t.Errorf("the runner got NoStderrTail %v, want [true]", runner.noTail)
	}
}

// earlyRunner is a fakeRunner that can start early (sandbox.EarlyStarter),
// recording what it was asked, in order.
type earlyRunner struct {
	fakeRunner
	calls []string
	ids   []string
	cache []sandbox.BuildCache
}

func (e *earlyRunner) StartEarly(c *sandbox.Command, id string, bc sandbox.BuildCache) {
	if c.Profile != nil {
		e.calls = append(e.calls, "start with a profile")
	}
	e.calls, e.ids, e.cache = append(e.calls, "start"), append(e.ids, id), append(e.cache, bc)
}

func (e *earlyRunner) EndEarly() { e.calls = append(e.calls, "end") }

func (e *earlyRunner) Run(ctx context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	e.calls = append(e.calls, "run")
	return e.fakeRunner.Run(ctx, c)
}

// TestSandboxStartsEarly: gatedexec sandbox lets a runner that can begin
// a run before its profile is read do so, naming the profile by its name
// and place, with the profile cache; the run follows, and EndEarly after
// it (ending nothing the run took) or, for a profile that does not
// resolve, instead of it.
func TestSandboxStartsEarly(t *testing.T) {
	h := newTestHost(t)
	for k, v := range h.env {
		t.Setenv(k, v)
	}
	// A cache base that does not exist turns the caches off.
	if err := os.MkdirAll(h.env["XDG_CACHE_HOME"], 0o700); err != nil {
		t.Fatal(err)
	}
	req := SandboxRequest{Place: Place{Cwd: h.workspace, Workspace: h.workspace}, Argv: []string{"true"},
		Profile: "read-only", Version: "test"}
	runner := &earlyRunner{}
	req.Runner = runner
	if _, err := Sandbox(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runner.calls, ", "); got != "start, run, end" {
		t.Errorf("calls: %s; want start, run, end", got)
	}
	if runner.ids[0] != earlyID("read-only", req.Place) || runner.cache[0].Dir == "" || runner.cache[0].Build == "" {
		t.Errorf("started early as %q with cache %+v", runner.ids[0], runner.cache[0])
	}
	if other := earlyID("read-only", Place{Cwd: "/", Workspace: h.workspace}); other == runner.ids[0] {
		t.Errorf("another directory names the profile the same: %q", other)
	}

	runner = &earlyRunner{}
	req.Runner, req.Profile = runner, "no-such-profile"
	if _, err := Sandbox(context.Background(), req); err == nil {
		t.Fatal("an unknown profile ran")
	}
	if got := strings.Join(runner.calls, ", "); got != "start, end" {
		t.Errorf("calls for an unknown profile: %s; want start, end", got)
	}
}

// TestRunStartsEarly: gatedexec run begins a run early, as sandbox does,
// for a command that runs with no one asked, and not for one an approver
// must settle (it could wait long, and be denied). EndEarly follows every
// early start: after the run it ends nothing (the run took what began).
func TestRunStartsEarly(t *testing.T) {
	h := newTestHost(t)
	if err := os.MkdirAll(h.env["XDG_CACHE_HOME"], 0o700); err != nil {
		t.Fatal(err)
	}
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `
prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["make"], decision="allow")
`)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"make", "all"}, "start, run, end"},
		{[]string{"git", "push"}, ""},
	} {
		runner := &earlyRunner{}
		g := h.gate(t, Flags{Approver: "deny"}, runner)
		if _, err := g.Run(context.Background(), Request{Argv: c.argv}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(runner.calls, ", "); got != c.want {
			t.Errorf("%q: calls %q, want %q", c.argv, got, c.want)
		}
	}
}
