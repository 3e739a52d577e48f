package gate

import (
	"context"
	"testing"
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
