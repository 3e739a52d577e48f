package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
)

// An exec approver's program and the files it is given, and their
// directories (where an interpreter imports from first), are control
// paths: a command that could rewrite them would approve itself.
func TestApproverFiles(t *testing.T) {
	dir := t.TempDir()
	prog, script := filepath.Join(dir, "approve"), filepath.Join(dir, "approve.py")
	for _, f := range []string{prog, script} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		spec string
		want []string
	}{
		{"exec:" + prog, []string{prog, dir}},
		{"exec:/bin/sh " + script + " --flag " + dir + " " + filepath.Join(dir, "missing"), []string{"/bin/sh", script, "/bin", dir}},
		// A missing program named by path is where it would be created.
		{"exec:" + filepath.Join(dir, "not-yet"), []string{filepath.Join(dir, "not-yet"), dir}},
		{"exec:no-such-approver-on-path", nil},
		{"deny", nil},
	} {
		a, err := approval.ParseApprover(tt.spec, approval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := approverFiles(a); !slices.Equal(got, tt.want) {
			t.Errorf("approverFiles(%s) = %q, want %q", tt.spec, got, tt.want)
		}
	}
}

// The caches are control paths while they are on: an entry written by
// the command would say what the next run's rules or profile are, or
// hide a repository from the next run's scan of the workspace. Off, they
// are not read, so they need no protection.
func TestControlPathsCoverTheCaches(t *testing.T) {
	root := t.TempDir()
	d := config.Dirs{Home: filepath.Join(root, "home"), Cache: filepath.Join(root, "cache", "gatedexec")}
	if err := os.MkdirAll(filepath.Dir(d.Cache), 0o700); err != nil {
		t.Fatal(err)
	}
	rules, profs, scans := filepath.Join(d.Cache, "rules"), filepath.Join(d.Cache, "profiles"), filepath.Join(d.Cache, "scans")
	for _, tt := range []struct {
		env  map[string]string
		want []string
		not  []string
	}{
		{nil, []string{rules, profs, scans}, nil},
		{map[string]string{"GATEDEXEC_NO_RULES_CACHE": "1"}, []string{profs, scans}, []string{rules}},
		{map[string]string{"GATEDEXEC_NO_CACHE": "1"}, nil, []string{rules, profs, scans}},
	} {
		got, scanCache, err := controlPaths(func(k string) string { return tt.env[k] }, d)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: scans}[slices.Contains(tt.want, scans)]; scanCache != want {
			t.Errorf("env %v: scan cache %q, want %q", tt.env, scanCache, want)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("env %v: control paths %q lack %s", tt.env, got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("env %v: control paths %q have %s", tt.env, got, n)
			}
		}
		if b := cacheBuild(func(k string) string { return tt.env[k] }, d, "v"); (b == "") != (len(tt.want) == 0) {
			t.Errorf("env %v: cacheBuild = %q", tt.env, b)
		}
	}
}

// TestResolveExisting compares resolver.existing with resolving every
// prefix with EvalSymlinks, longest first, on a tree of links: to
// directories, chained, relative with "..", absolute, dangling, to a
// file, a loop, and paths missing one or several levels; each path with a
// fresh resolver and with one that resolved all the others first, whose
// memory must not change an answer.
func TestResolveExisting(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b/c", "x"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a", "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"l1": "a/b", "l2": "l1", "x/up": "../a", "dangling": "nowhere/deeper", "lf": "a/file", "loop": "loop",
		"abs": filepath.Join(root, "x", "up", "b"), "a/b/back": "../../x/up/b/c/../..", "ping": "pong", "pong": "ping",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	slow := func(p string) string {
		rest := ""
		for dir := p; ; dir = filepath.Dir(dir) {
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				return filepath.Join(r, rest)
			}
			if dir == filepath.Dir(dir) {
				return p
			}
			rest = filepath.Join(filepath.Base(dir), rest)
		}
	}
	rels := []string{
		"a/b/c", "a/b/c/missing", "a/m1/m2/m3", "l1/c", "l2/c/new/deeper", "x/up/b/c/q", "dangling", "dangling/sub",
		"lf", "lf/sub", "a/file/sub/deeper", "loop/sub", "m1/m2", ".", "abs/c", "a/b/back/l2/c", "ping/x", "l2/../x/up", "l1/back/b/c",
	}
	warm := newResolver()
	for _, rel := range rels {
		warm.existing(filepath.Join(root, rel))
	}
	for _, rel := range rels {
		p := filepath.Join(root, rel)
		want := slow(p)
		if got := newResolver().existing(p); got != want {
			t.Errorf("existing(%s) = %s, want %s", rel, got, want)
		}
		if got := warm.existing(p); got != want {
			t.Errorf("existing(%s), after the others = %s, want %s", rel, got, want)
		}
	}
}

// TestResolverLinkLimit: a chain longer than the kernel follows does not
// resolve, and failing it does not fail its shorter tail, resolved next.
func TestResolverLinkLimit(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const n = maxLinks + 45
	for i := range n {
		target := fmt.Sprintf("c%d", i+1)
		if i == n-1 {
			target = "."
		}
		if err := os.Symlink(target, filepath.Join(root, fmt.Sprintf("c%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	r := newResolver()
	if _, err := r.eval(filepath.Join(root, "c0")); err == nil {
		t.Errorf("a chain of %d links resolved", n)
	}
	if got, err := r.eval(filepath.Join(root, "c100")); err != nil || got != root {
		t.Errorf("its last %d links: %q, %v; want %s", n-100, got, err, root)
	}
}

// The git scan's cache is a control path, and WithScanCache finds it
// among them also where $XDG_CACHE_HOME is a link: the unresolved path
// was not under the resolved control paths, and the cache was off.
func TestScanCacheThroughLink(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `prefix_rule(pattern=["make"], decision="allow")`)
	real := filepath.Join(filepath.Dir(h.env["XDG_CACHE_HOME"]), "real-cache")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, h.env["XDG_CACHE_HOME"]); err != nil {
		t.Fatal(err)
	}
	r := &profileRunner{}
	g := h.gate(t, Flags{Approver: "deny"}, r)
	if res, err := g.Run(context.Background(), Request{Argv: []string{"make"}}); err != nil || !res.Ran {
		t.Fatalf("run: %+v, %v", res, err)
	}
	want := filepath.Join(real, "gatedexec", "scans")
	if len(r.profiles) != 1 || r.profiles[0].ScanCache != want {
		t.Errorf("the run's scan cache is %q, want %q", r.profiles[0].ScanCache, want)
	}
}
