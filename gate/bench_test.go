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
	h := newTestHost(b)
	delete(h.env, "GATEDEXEC_NO_RULES_CACHE")
	// A cache needs its base directory to exist.
	for _, d := range []string{h.env["XDG_CACHE_HOME"], filepath.Join(h.workspace, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	h.write(b, filepath.Join(h.user, "rules", "r.rules"), `prefix_rule(pattern=["true"], decision="allow")`+"\n")
	g, err := New(Config{Workspace: h.workspace, Flags: Flags{Approver: "deny"}, Getenv: h.getenv,
		Runner: &syncRunner{}, Watch: true, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	req := Request{Argv: []string{"true"}, Shell: true, Cwd: h.workspace}
	for b.Loop() {
		if _, err := g.Check(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		res, err := g.Run(context.Background(), req)
		if err != nil || !res.Ran || res.Decision != "allow" {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkFingerprint is what a long-lived front end's Refresh costs per
// request when nothing changed: the stat calls and the digest of the
// configuration's sources.
func BenchmarkFingerprint(b *testing.B) {
	h := newTestHost(b)
	h.write(b, filepath.Join(h.user, "rules", "r.rules"), `prefix_rule(pattern=["true"], decision="allow")`+"\n")
	h.write(b, filepath.Join(h.user, "config.toml"), "")
	g, err := New(Config{Workspace: h.workspace, Flags: Flags{Approver: "deny"}, Getenv: h.getenv, Runner: &syncRunner{}, Watch: true})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	sources := g.state.Load().sources
	b.ReportMetric(float64(len(sources)), "paths")
	for b.Loop() {
		fingerprint(sources)
	}
}
