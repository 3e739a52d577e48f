package execpolicy

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// cacheTestFiles exercise everything a Policy holds: alternatives in both
// positions, justifications, profiles, examples, host executables (one
// with "~/" and one declared empty) and network rules, over several files
// and a directory.
var cacheTestFiles = map[string]string{
	"10-base.rules": `
host_executable(name="git", paths=["/usr/bin/git", "~/bin/git"])
host_executable(name="curl", paths=[])
prefix_rule(pattern=["git", ["status", "log"]], decision="allow", match=["git status", "/usr/bin/git log -1"], not_match=["git push"])
prefix_rule(pattern=[["npm", "pnpm"], "ci"], decision="prompt", justification="network access", profile="net")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="no recursive deletes")
network_rule(host="Example.COM:443", protocol="https", decision="allow", justification="docs")
network_rule(host="[::1]", protocol="http", decision="deny")
`,
	"20-more.rules": `
for i in range(20):
    prefix_rule(["tool%d" % i, "run"], ["allow", "prompt", "forbidden"][i % 3])
prefix_rule(["git", "push"], "prompt", match=[["git", "push", "origin"]])
prefix_rule(["git"])
`,
}

// cacheTestCommands are evaluated under a fresh and a cached policy; the
// results must be the same.
var cacheTestCommands = [][]string{
	{"git", "status"}, {"git", "log", "-1"}, {"git", "push", "origin"}, {"/usr/bin/git", "status"},
	{"/tmp/git", "status"}, {os.Getenv("HOME") + "/bin/git", "log"}, {"/home/alice/bin/git", "log"},
	{"npm", "ci"}, {"pnpm", "ci", "--frozen"}, {"rm", "-rf", "/"}, {"tool4", "run"}, {"tool5", "run", "x"},
	{"curl", "https://example.com"}, {"/usr/bin/curl", "x"}, {"bash", "-c", "git status && rm -rf /"},
	{"ls"}, {},
}

// cacheFixture writes the test files and returns the paths to load, in
// the way the command line names them: one file and one directory.
func cacheFixture(t *testing.T) (paths []string, dir string) {
	t.Helper()
	dir = t.TempDir()
	rules := filepath.Join(dir, "rules.d")
	if err := os.Mkdir(rules, 0o700); err != nil {
		t.Fatal(err)
	}
	writeRules(t, rules, map[string]string{"20-more.rules": cacheTestFiles["20-more.rules"]})
	writeRules(t, dir, map[string]string{"10-base.rules": cacheTestFiles["10-base.rules"]})
	return []string{filepath.Join(dir, "10-base.rules"), rules}, dir
}

func cacheLoader(t *testing.T) Loader {
	return Loader{HomeDir: "/home/alice", CacheDir: filepath.Join(t.TempDir(), "cache", "rules"), CacheBuild: "test build"}
}

// cached returns the policy the cache holds for paths, or nil on a miss.
func cached(t *testing.T, l Loader, paths ...string) *Policy {
	t.Helper()
	files, err := ExpandRulePaths(paths...)
	if err != nil {
		t.Fatal(err)
	}
	sums := make([][sha256.Size]byte, len(files))
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sums[i] = sha256.Sum256(src)
	}
	return l.cacheEntryFor(files, sums).load()
}

// sumsOf returns the SHA-256s of srcs.
func sumsOf(srcs ...string) [][sha256.Size]byte {
	sums := make([][sha256.Size]byte, len(srcs))
	for i, src := range srcs {
		sums[i] = sha256.Sum256([]byte(src))
	}
	return sums
}

// entryPath returns the one entry in l's cache directory.
func entryPath(t *testing.T, l Loader) string {
	t.Helper()
	entries, err := os.ReadDir(l.CacheDir)
	// Entries are named in hex: the trim marker's name starts with a dot.
	entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".") })
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache directory holds %v (%v), want one entry", entries, err)
	}
	return filepath.Join(l.CacheDir, entries[0].Name())
}

// policyView is what a policy decides with, for comparing policies: its
// rules decoded, whether they were loaded or come from a cache entry.
type policyView struct {
	Rules       map[string][]PrefixRule
	NRules      int
	Hosts       map[string][]string
	Network     []NetworkRule
	Sources     []source
	Examples    int
	ProfileRefs []ProfileRef
}

// namesOf returns the names of the files p was loaded from, which its
// cache entry is written for.
func namesOf(p *Policy) []string {
	var names []string
	for _, s := range p.sources {
		names = append(names, s.name)
	}
	return names
}

// rulesOf returns p's view. It takes the profile references first, so
// that those of rules still encoded are compared too.
func rulesOf(p *Policy) policyView {
	v := policyView{Rules: map[string][]PrefixRule{}, NRules: p.nrules, Hosts: p.hostExecutables,
		Network: p.network, Sources: p.sources, Examples: p.nexamples, ProfileRefs: p.ProfileRefs()}
	for prog, b := range p.byProgram {
		for _, r := range b.all() {
			v.Rules[prog] = append(v.Rules[prog], *r)
		}
	}
	return v
}

// assertSamePolicy fails unless got and want hold the same rules, digest
// and decisions.
func assertSamePolicy(t *testing.T, got, want *Policy) {
	t.Helper()
	// Evaluations first, while a cached policy's rules are still encoded.
	for _, argv := range cacheTestCommands {
		for _, opts := range []EvalOptions{{}, {ResolveHostExecutables: true}} {
			g, w := got.Evaluate(argv, opts), want.Evaluate(argv, opts)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("Evaluate(%q, %+v) = %+v, want %+v", argv, opts, g, w)
			}
		}
	}
	if !reflect.DeepEqual(rulesOf(got), rulesOf(want)) {
		t.Fatalf("policies differ:\n got %+v\nwant %+v", rulesOf(got), rulesOf(want))
	}
	if got.Digest() != want.Digest() {
		t.Errorf("Digest %s, want %s", got.Digest(), want.Digest())
	}
}

// TestCachedRulesDecodeOnUse: a policy read from the cache decodes a
// program's rules when a command names it, and no others; merged between
// rules loaded from files, they keep their place in load order.
func TestCachedRulesDecodeOnUse(t *testing.T) {
	paths, _ := cacheFixture(t)
	l := cacheLoader(t)
	if _, err := l.LoadFiles(paths...); err != nil {
		t.Fatal(err)
	}
	hit := cached(t, l, paths...)
	if hit == nil {
		t.Fatal("no cache entry after a load")
	}
	encoded := func(p *Policy, prog string) bool {
		b := p.byProgram[prog]
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.pending) > 0
	}
	for _, prog := range []string{"git", "npm", "tool4"} {
		if !encoded(hit, prog) {
			t.Fatalf("%s decoded before any lookup", prog)
		}
	}
	if d := hit.Evaluate([]string{"git", "status"}, EvalOptions{}).Decision; d != Allow {
		t.Fatalf("git status: %v, want allow", d)
	}
	// Matching reads the block without keeping it decoded.
	if !encoded(hit, "git") || !encoded(hit, "npm") || !encoded(hit, "tool4") {
		t.Error("a lookup of git decoded a program's rules")
	}
	if n := len(hit.byProgram["git"].all()); n != 3 || encoded(hit, "git") || !encoded(hit, "npm") {
		t.Errorf("all() of git gave %d rules, or decoded other programs' rules", n)
	}

	merged := NewPolicy()
	merged.AddPrefixRule(PrefixRule{Program: "npm", Decision: Allow, Source: "before"})
	merged.Merge(hit)
	merged.AddPrefixRule(PrefixRule{Program: "npm", Decision: Allow, Source: "after"})
	var sources []string
	for _, m := range merged.MatchArgv([]string{"npm", "ci"}, MatchOptions{}) {
		sources = append(sources, filepath.Base(m.Source))
	}
	if want := []string{"before", "10-base.rules:5:1", "after"}; !reflect.DeepEqual(sources, want) {
		t.Errorf("npm ci matched %q, want %q", sources, want)
	}
}

func TestCacheHitEqualsFreshLoad(t *testing.T) {
	paths, _ := cacheFixture(t)
	l := cacheLoader(t)
	fresh, err := Loader{HomeDir: l.HomeDir}.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Len() != 26 || fresh.Examples() != 4 || len(fresh.NetworkRules()) != 2 {
		t.Fatalf("fixture loaded %d rules, %d examples, %d network rules", fresh.Len(), fresh.Examples(), len(fresh.NetworkRules()))
	}
	if p := cached(t, l, paths...); p != nil {
		t.Fatal("hit before the first load")
	}
	miss, err := l.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	assertSamePolicy(t, miss, fresh)

	hit := cached(t, l, paths...)
	if hit == nil {
		t.Fatal("no cache entry after a load")
	}
	hit, err = l.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	assertSamePolicy(t, hit, fresh)

	// The cache directory and entry are private.
	for path, want := range map[string]os.FileMode{l.CacheDir: 0o700 | os.ModeDir, entryPath(t, l): 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, st.Mode(), err, want)
		}
	}
}

func TestCacheMisses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, l *Loader, paths []string)
	}{
		{"one byte of a file", func(t *testing.T, _ *Loader, paths []string) {
			src, err := os.ReadFile(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(string(src), `"forbidden"`) + 1
			src[i] = 'F' // "Forbidden" is no decision: the load must fail.
			if err := os.WriteFile(paths[0], src, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"one byte, same length and time", func(t *testing.T, _ *Loader, paths []string) {
			st, err := os.Stat(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			src, _ := os.ReadFile(paths[0])
			src[strings.Index(string(src), "rm")] = 'x'
			if err := os.WriteFile(paths[0], src, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(paths[0], st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file added to the directory", func(t *testing.T, _ *Loader, paths []string) {
			writeRules(t, paths[1], map[string]string{"30-new.rules": `prefix_rule(["ls"], "forbidden")`})
		}},
		{"another build", func(_ *testing.T, l *Loader, _ []string) { l.CacheBuild = "other build" }},
		{"another home directory", func(_ *testing.T, l *Loader, _ []string) { l.HomeDir = "/home/bob" }},
		{"a lower step limit", func(_ *testing.T, l *Loader, _ []string) { l.MaxSteps = 10 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths, _ := cacheFixture(t)
			l := cacheLoader(t)
			if _, err := l.LoadFiles(paths...); err != nil {
				t.Fatal(err)
			}
			tc.change(t, &l, paths)
			if p := cached(t, l, paths...); p != nil {
				t.Fatal("cache hit after the change")
			}
			got, gotErr := l.LoadFiles(paths...)
			want, wantErr := Loader{HomeDir: l.HomeDir, MaxSteps: l.MaxSteps}.LoadFiles(paths...)
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Fatalf("error %v, want %v", gotErr, wantErr)
			}
			if wantErr == nil {
				assertSamePolicy(t, got, want)
			}
		})
	}
}

func TestCacheNeverStoresErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.rules")
	writeRules(t, dir, map[string]string{"bad.rules": "prefix_rule([\"ls\"])\nprefix_rule([\"git\"], \"sometimes\")"})
	l := cacheLoader(t)
	for range 2 {
		p, err := l.LoadFiles(bad)
		if want := bad + ":2:1: invalid decision: sometimes"; p != nil || err == nil || err.Error() != want {
			t.Fatalf("LoadFiles = %v, %v; want error %q", p, err, want)
		}
	}
	if entries, _ := os.ReadDir(l.CacheDir); len(entries) != 0 {
		t.Errorf("cache holds %v after failed loads", entries)
	}
}

// TestCacheBadEntries damages the entry in every way the loader must
// notice, and checks that each time it loads the files instead.
func TestCacheBadEntries(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, l Loader, entry string)
		root   bool
	}{
		{"empty", func(t *testing.T, _ Loader, entry string) { rewrite(t, entry, func(b []byte) []byte { return nil }) }, false},
		{"truncated by one byte", func(t *testing.T, _ Loader, entry string) {
			rewrite(t, entry, func(b []byte) []byte { return b[:len(b)-1] })
		}, false},
		{"truncated to the header", func(t *testing.T, _ Loader, entry string) {
			rewrite(t, entry, func(b []byte) []byte { return b[:len(cacheMagic)+cacheKeySize] })
		}, false},
		{"a flipped bit in the body", func(t *testing.T, _ Loader, entry string) {
			rewrite(t, entry, func(b []byte) []byte { b[len(b)/2] ^= 1; return b })
		}, false},
		{"a changed justification", func(t *testing.T, _ Loader, entry string) {
			// Still well formed: only the checksum tells.
			rewrite(t, entry, func(b []byte) []byte {
				i := strings.Index(string(b), "no recursive deletes")
				b[i] = 'N'
				return b
			})
		}, false},
		{"a flipped bit in the key", func(t *testing.T, _ Loader, entry string) {
			rewrite(t, entry, func(b []byte) []byte { b[len(cacheMagic)] ^= 1; return b })
		}, false},
		{"another format", func(t *testing.T, _ Loader, entry string) {
			rewrite(t, entry, func(b []byte) []byte { b[len(cacheMagic)-1]++; return b })
		}, false},
		{"trailing garbage", func(t *testing.T, _ Loader, entry string) {
			rewrite(t, entry, func(b []byte) []byte { return append(b, 0) })
		}, false},
		{"the entry of other files", func(t *testing.T, l Loader, entry string) {
			other := filepath.Join(t.TempDir(), "other.rules")
			if err := os.WriteFile(other, []byte(`prefix_rule(["rm"], "allow")`), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := Load(other, []byte(`prefix_rule(["rm"], "allow")`))
			if err != nil {
				t.Fatal(err)
			}
			key := l.cacheKey([]string{other}, sumsOf(`prefix_rule(["rm"], "allow")`))
			rewrite(t, entry, func([]byte) []byte { return encodePolicy(key, p, namesOf(p)) })
		}, false},
		{"group writable", func(t *testing.T, _ Loader, entry string) { chmod(t, entry, 0o620) }, false},
		{"world writable", func(t *testing.T, _ Loader, entry string) { chmod(t, entry, 0o602) }, false},
		{"directory world writable", func(t *testing.T, l Loader, _ string) { chmod(t, l.CacheDir, 0o777) }, false},
		{"a symlink", func(t *testing.T, _ Loader, entry string) {
			moved := entry + ".real"
			if err := os.Rename(entry, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, entry); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"owned by another user", func(t *testing.T, _ Loader, entry string) {
			if err := os.Chown(entry, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"directory owned by another user", func(t *testing.T, l Loader, _ string) {
			if err := os.Chown(l.CacheDir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				if os.Getenv("CI") != "" {
					t.Fatal("needs root to chown")
				}
				t.Skip("needs root to chown")
			}
			paths, _ := cacheFixture(t)
			l := cacheLoader(t)
			fresh, err := l.LoadFiles(paths...)
			if err != nil {
				t.Fatal(err)
			}
			if cached(t, l, paths...) == nil {
				t.Fatal("no entry to damage")
			}
			tc.damage(t, l, entryPath(t, l))
			if p := cached(t, l, paths...); p != nil {
				t.Fatal("damaged entry used")
			}
			got, err := l.LoadFiles(paths...)
			if err != nil {
				t.Fatal(err)
			}
			assertSamePolicy(t, got, fresh)
		})
	}
}

func rewrite(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestCacheWriteFailure checks that a cache that cannot be written leaves
// loading working.
func TestCacheWriteFailure(t *testing.T) {
	paths, dir := cacheFixture(t)
	blocker := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l := Loader{HomeDir: "/home/alice", CacheDir: filepath.Join(blocker, "rules"), CacheBuild: "b"}
	got, err := l.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Loader{HomeDir: "/home/alice"}.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	assertSamePolicy(t, got, want)
}

func TestCacheCodecRoundTrip(t *testing.T) {
	for name, src := range map[string]string{
		"empty":    "",
		"one rule": `prefix_rule(["true"])`,
		"fixture":  cacheTestFiles["10-base.rules"],
		"bench":    benchPolicySource(300),
	} {
		p, err := Loader{HomeDir: "/h"}.Load("f.rules", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		key := [cacheKeySize]byte{1, 2, 3}
		got, err := decodePolicy(key, encodePolicy(key, p, namesOf(p)), namesOf(p))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got.sources = p.sources
		if !reflect.DeepEqual(rulesOf(got), rulesOf(p)) {
			t.Errorf("%s: decoded %+v, want %+v", name, got, p)
		}
	}
}

// TestCacheKeyCoversInputs checks the key on its own: the slot also
// separates some of these, but the key must not rely on it.
func TestCacheKeyCoversInputs(t *testing.T) {
	base := Loader{HomeDir: "/home/a", CacheBuild: "b1"}
	files, srcs := []string{"a.rules", "b.rules"}, sumsOf("x", "y")
	want := base.cacheKey(files, srcs)
	for name, tc := range map[string]struct {
		l     Loader
		files []string
		srcs  [][sha256.Size]byte
	}{
		"home":        {Loader{HomeDir: "/home/b", CacheBuild: "b1"}, files, srcs},
		"build":       {Loader{HomeDir: "/home/a", CacheBuild: "b2"}, files, srcs},
		"file size":   {Loader{HomeDir: "/home/a", CacheBuild: "b1", MaxFileSize: 10}, files, srcs},
		"steps":       {Loader{HomeDir: "/home/a", CacheBuild: "b1", MaxSteps: 10}, files, srcs},
		"entries":     {Loader{HomeDir: "/home/a", CacheBuild: "b1", MaxEntries: 10}, files, srcs},
		"a name":      {base, []string{"a.rules", "c.rules"}, srcs},
		"the order":   {base, []string{"b.rules", "a.rules"}, sumsOf("y", "x")},
		"a content":   {base, files, sumsOf("x", "z")},
		"a boundary":  {base, []string{"a.rules", "b.rules"}, sumsOf("xy", "")},
		"a file more": {base, []string{"a.rules", "b.rules", "c.rules"}, sumsOf("x", "y", "")},
	} {
		if got := tc.l.cacheKey(tc.files, tc.srcs); got == want {
			t.Errorf("changing %s keeps the key", name)
		}
	}
	if again := base.cacheKey(files, srcs); again != want {
		t.Error("the key is not deterministic")
	}
}

// Two builds loading the same rules in turn each keep their entry.
func TestCacheKeepsEachBuild(t *testing.T) {
	paths, _ := cacheFixture(t)
	a := cacheLoader(t)
	b := a
	b.CacheBuild = "another build"
	for _, l := range []Loader{a, b} {
		if _, err := l.LoadFiles(paths...); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []Loader{a, b} {
		if cached(t, l, paths...) == nil {
			t.Errorf("build %q: no entry after the other build's load", l.CacheBuild)
		}
	}
}

func TestCacheNeedsBuild(t *testing.T) {
	paths, _ := cacheFixture(t)
	l := cacheLoader(t)
	l.CacheBuild = ""
	if _, err := l.LoadFiles(paths...); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.CacheDir); !os.IsNotExist(err) {
		t.Errorf("cache written without a build identity: %v", err)
	}
}

func TestBuildIdentity(t *testing.T) {
	a, b := BuildIdentity("1.0"), BuildIdentity("1.1")
	if a == "" || a == b || a != BuildIdentity("1.0") {
		t.Errorf("BuildIdentity: %q for 1.0 (twice %q), %q for 1.1", a, BuildIdentity("1.0"), b)
	}
}

// TestRunningExecutable: the file BuildIdentity describes is the running
// executable, the one its path names while nothing has replaced it.
func TestRunningExecutable(t *testing.T) {
	_, st, err := runningExecutable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	byPath, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(st, byPath) {
		t.Errorf("runningExecutable describes %v, not %s", st.Sys(), exe)
	}
}

func BenchmarkLoadFilesCached(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "bench.rules")
	if err := os.WriteFile(file, []byte(benchPolicySource(1_000)), 0o600); err != nil {
		b.Fatal(err)
	}
	l := Loader{CacheDir: filepath.Join(dir, "cache"), CacheBuild: "bench"}
	if _, err := l.LoadFiles(file); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.LoadFiles(file); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePolicy(b *testing.B) {
	p, err := Load("bench.rules", []byte(benchPolicySource(1_000)))
	if err != nil {
		b.Fatal(err)
	}
	key := [cacheKeySize]byte{1}
	files := namesOf(p)
	entry := encodePolicy(key, p, files)
	b.SetBytes(int64(len(entry)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodePolicy(key, entry, files); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCacheManyExamples: the number of examples verified is not backed by
// bytes of the entry, so a file with many examples and one short rule
// must still decode from the cache.
func TestCacheManyExamples(t *testing.T) {
	src := `prefix_rule(["a"], match=[["a", "x"]` + strings.Repeat(`, ["a", "x"]`, 199) + `])`
	p, err := Loader{HomeDir: "/h"}.Load("f.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Examples() != 200 {
		t.Fatalf("%d examples, want 200", p.Examples())
	}
	key := [cacheKeySize]byte{1}
	got, err := decodePolicy(key, encodePolicy(key, p, namesOf(p)), namesOf(p))
	if err != nil {
		t.Fatalf("the entry of a policy with 200 examples does not decode: %v", err)
	}
	if got.Examples() != 200 {
		t.Fatalf("decoded %d examples, want 200", got.Examples())
	}
}
