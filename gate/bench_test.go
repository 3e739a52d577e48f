package gate

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRunWatching is the engine's own cost per request for a
// long-lived front end (the MCP server's path: Watch, Check then Run of a
// shell script), with a runner that runs nothing and the caches on: what
// a warm command costs before and after its sandbox.
func BenchmarkRunWatching(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	env := map[string]string{
		"HOME":                 filepath.Join(root, "home"),
		"XDG_CONFIG_HOME":      filepath.Join(root, "config"),
		"XDG_STATE_HOME":       filepath.Join(root, "state"),
		"XDG_CACHE_HOME":       filepath.Join(root, "cache"),
		"GATEDEXEC_SYSTEM_DIR": filepath.Join(root, "etc"),
	}
	ws := filepath.Join(root, "ws")
	for _, d := range []string{env["HOME"], env["XDG_CACHE_HOME"], filepath.Join(ws, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	rules := filepath.Join(root, "r.rules")
	if err := os.WriteFile(rules, []byte(`prefix_rule(pattern=["true"], decision="allow")`+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	g, err := New(Config{Workspace: ws, Rules: []string{rules}, Flags: Flags{Approver: "deny"},
		Getenv: func(k string) string { return env[k] }, Runner: &syncRunner{}, Watch: true, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	req := Request{Argv: []string{"true"}, Shell: true, Cwd: ws}
	for b.Loop() {
		if _, err := g.Check(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		res, err := g.Run(context.Background(), req)
		if err != nil || !res.Ran {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
