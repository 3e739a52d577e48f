//go:build linux

package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rules1000 is the 1 000-rule policy of scripts/bench.sh, plus the rules
// the commands benchmarked here need.
func rules1000() string {
	progs := []string{"git", "npm", "cargo", "go", "make", "python3", "docker", "kubectl", "ls", "cat"}
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "prefix_rule(pattern=[%q, \"sub%d\"], decision=%q)\n", progs[i%len(progs)], i, []string{"allow", "prompt", "forbidden"}[i%3])
	}
	b.WriteString(`prefix_rule(pattern=["true"], decision="allow")` + "\n")
	b.WriteString(`prefix_rule(pattern=["/bin/true"], decision="allow")` + "\n")
	return b.String()
}

// spacing is the pause, left out of the timing, between the calls of the
// -spaced rows: an agent's commands come seconds apart, and a long-lived
// server does ahead, between them, what it can (the next helper's start).
const spacing = 5 * time.Millisecond

// benchExec runs argv once per iteration, with stdin from a file when
// given; a failure is fatal.
func benchExec(b *testing.B, env []string, dir, stdin string, argv ...string) {
	b.Helper()
	benchExecSpaced(b, 0, env, dir, stdin, argv...)
}

// benchExecSpaced is benchExec pausing space before each run.
func benchExecSpaced(b *testing.B, space time.Duration, env []string, dir, stdin string, argv ...string) {
	b.Helper()
	var took []time.Duration
	for b.Loop() {
		pause(b, space)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.Dir = env, dir
		if stdin != "" {
			f, err := os.Open(stdin)
			if err != nil {
				b.Fatal(err)
			}
			cmd.Stdin = f
			defer f.Close()
		}
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatalf("%q: %v\n%s", argv, err, out)
		}
	}
	reportMedian(b, took)
}

// reportMedian reports the median of took as median-ms: the mean that
// ns/op is takes in every stall of the machine, the median does not.
func reportMedian(b *testing.B, took []time.Duration) {
	b.ReportMetric(median(took).Seconds()*1e3, "median-ms")
}

// pause sleeps d outside b's timing.
func pause(b *testing.B, d time.Duration) {
	if d > 0 {
		b.StopTimer()
		time.Sleep(d)
		b.StartTimer()
	}
}

// BenchmarkAgentHook is the hook's whole-process latency on a 1 000-rule
// policy beside `gatedexec check` of the same command (the target: under
// 10 ms).
func BenchmarkAgentHook(b *testing.B) {
	f := newGateFixture(b, rules1000())
	ev, _ := json.Marshal(map[string]any{
		"session_id": "bench", "cwd": f.ws, "permission_mode": "default", "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git status && make test"},
	})
	event := filepath.Join(f.dir, "event.json")
	if err := os.WriteFile(event, ev, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		benchExec(b, f.env, f.ws, "", gatedexecBin, "check", "--shell", "-r", f.rules, "--", "git status && make test")
	})
	b.Run("hook-claude-code", func(b *testing.B) {
		benchExec(b, f.env, f.ws, event, gatedexecBin, "hook", "claude-code", "-r", f.rules)
	})
}

// BenchmarkAgentTrue is the per-command cost of /bin/true: bare, as a
// one-shot `gatedexec run` (of the command, and of it as a script, which
// is what the MCP tool runs, plain and not), and through the warm MCP
// server (the rules loaded once, one JSON-RPC round trip per command),
// beside the sandbox alone and bwrap. The target for the warm path: at most half the
// one-shot run of the same script. The -spaced rows pause between calls
// as an agent does, which a long-lived server uses to start the next
// call's helper ahead (sandbox/linux/prestart.go). Each row reports its
// median (median-ms) beside the mean, ns/op; make bench compares medians.
func BenchmarkAgentTrue(b *testing.B) {
	f := newGateFixture(b, rules1000())
	b.Run("bare", func(b *testing.B) {
		benchExec(b, f.env, f.ws, "", "/bin/true")
	})
	b.Run("sandbox-oneshot", func(b *testing.B) {
		// The sandbox alone, the floor of any gated run.
		benchExec(b, f.env, f.ws, "", gatedexecBin, "sandbox", "--", "/bin/true")
	})
	b.Run("bwrap", func(b *testing.B) {
		// bwrap with workspace-write's namespaces and mounts: what the
		// kernel work of one sandboxed start costs from a C program, the
		// floor of the warm path, which pays no process start of its own.
		bw, err := exec.LookPath("bwrap")
		if err != nil {
			b.Skip("bwrap is not installed (make bench installs it)")
		}
		benchExec(b, f.env, f.ws, "", bw, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			"--bind", f.ws, f.ws, "--bind", "/tmp", "/tmp", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--", "/bin/true")
	})
	b.Run("run-oneshot", func(b *testing.B) {
		benchExec(b, f.env, f.ws, "", gatedexecBin, "run", "-r", f.rules, "--", "/bin/true")
	})
	// What the MCP tool runs: its command is a bash script, run as run
	// --shell does: a plain command (/bin/true) without bash, any other
	// script with bash -c in the sandbox: the -bash rows quote the word,
	// which bash then executes as it would /bin/true.
	for _, sc := range []struct {
		name, script string
		space        time.Duration
	}{{"", "/bin/true", 0}, {"-bash", "'/bin/true'", 0}, {"-spaced", "/bin/true", spacing}} {
		name, script, space := sc.name, sc.script, sc.space
		b.Run("run-oneshot-shell"+name, func(b *testing.B) {
			benchExecSpaced(b, space, f.env, f.ws, "", gatedexecBin, "run", "--shell", "-r", f.rules, "--", script)
		})
		b.Run("mcp-warm"+name, func(b *testing.B) {
			cs := warmMCP(b, f)
			defer cs.Close()
			args := &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": script}}
			var took []time.Duration
			for b.Loop() {
				pause(b, space)
				start := time.Now()
				res, err := cs.CallTool(context.Background(), args)
				took = append(took, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("run_command: %v %+v", err, res)
				}
			}
			reportMedian(b, took)
		})
	}
}

// warmMCP starts the MCP server of f's rules and workspace and connects
// to it; the caller closes the session.
func warmMCP(b *testing.B, f gateFixture) *mcp.ClientSession {
	b.Helper()
	cmd := exec.Command(gatedexecBin, "mcp", "-r", f.rules, "-w", f.ws)
	cmd.Env, cmd.Dir = f.env, f.ws
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

// BenchmarkAgentInterleaved times the warm MCP path and the one-shot `run
// --shell` of the same script alternately, one call of each per
// iteration, and reports the median of each (warm-ms, oneshot-ms) and
// their ratio. The rows of BenchmarkAgentTrue run one after the other,
// each in the state the rows before it left the machine in (a noisy VM's
// included); alternating, both paths meet the same machine.
func BenchmarkAgentInterleaved(b *testing.B) {
	f := newGateFixture(b, rules1000())
	cs := warmMCP(b, f)
	defer cs.Close()
	args := &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "/bin/true"}}
	var warm, oneshot []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), args)
		if err != nil || res.IsError {
			b.Fatalf("run_command: %v %+v", err, res)
		}
		warm = append(warm, time.Since(start))
		start = time.Now()
		run := exec.Command(gatedexecBin, "run", "--shell", "-r", f.rules, "--", "/bin/true")
		run.Env, run.Dir = f.env, f.ws
		if out, err := run.CombinedOutput(); err != nil {
			b.Fatalf("run --shell: %v\n%s", err, out)
		}
		oneshot = append(oneshot, time.Since(start))
	}
	w, o := median(warm), median(oneshot)
	b.ReportMetric(w.Seconds()*1e3, "warm-ms")
	b.ReportMetric(o.Seconds()*1e3, "oneshot-ms")
	b.ReportMetric(w.Seconds()/o.Seconds(), "warm/oneshot")
}

// median returns the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
