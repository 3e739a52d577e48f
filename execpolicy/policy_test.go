package execpolicy

import (
	"crypto/sha256"
	"reflect"
	"testing"
)

func mustLoad(t testing.TB, name, src string) *Policy {
	t.Helper()
	p, err := Load(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDigest(t *testing.T) {
	base := mustLoad(t, "a.rules", `prefix_rule(["git"])`)
	same := mustLoad(t, "a.rules", `prefix_rule(["git"])`)
	if base.Digest() != same.Digest() {
		t.Errorf("equal sources, different digests")
	}
	if len(base.Digest()) != 64 {
		t.Errorf("Digest %q is not hex SHA-256", base.Digest())
	}
	for name, other := range map[string]*Policy{
		"other name":   mustLoad(t, "b.rules", `prefix_rule(["git"])`),
		"other text":   mustLoad(t, "a.rules", `prefix_rule(["git"], "prompt")`),
		"whitespace":   mustLoad(t, "a.rules", `prefix_rule(["git"]) `),
		"empty policy": NewPolicy(),
	} {
		if other.Digest() == base.Digest() {
			t.Errorf("%s: digest unchanged", name)
		}
	}
	// The boundary between one file's name and the next is part of what
	// is hashed.
	split1, split2 := NewPolicy(), NewPolicy()
	sum := sha256.Sum256(nil)
	split1.sources = []source{{name: "ab", sum: sum}, {name: "c", sum: sum}}
	split2.sources = []source{{name: "a", sum: sum}, {name: "bc", sum: sum}}
	if split1.Digest() == split2.Digest() {
		t.Errorf("moving the boundary between names does not change the digest")
	}
	// Order of layers matters to the digest, as it does to match order.
	ab, ba := NewPolicy(), NewPolicy()
	a, b := mustLoad(t, "a.rules", `prefix_rule(["a"])`), mustLoad(t, "b.rules", `prefix_rule(["b"])`)
	ab.Merge(a)
	ab.Merge(b)
	ba.Merge(b)
	ba.Merge(a)
	if ab.Digest() == ba.Digest() {
		t.Errorf("merge order does not change the digest")
	}
}

func TestMerge(t *testing.T) {
	p := mustLoad(t, "1.rules", "host_executable(\"git\", [\"/usr/bin/git\"])\nprefix_rule([\"git\"], \"allow\", match=[\"git\"])\nnetwork_rule(\"a.example\", \"https\", \"allow\")")
	q := mustLoad(t, "2.rules", "host_executable(\"git\", [\"/opt/bin/git\", \"/usr/bin/git\"])\nprefix_rule([\"git\", \"push\"], \"forbidden\")\nprefix_rule([\"ls\"])\nnetwork_rule(\"b.example\", \"http\", \"forbidden\")")
	p.Merge(q)
	if p.Len() != 3 || p.Examples() != 1 {
		t.Errorf("Len, Examples = %d, %d; want 3, 1", p.Len(), p.Examples())
	}
	opts := MatchOptions{ResolveHostExecutables: true}
	got := summarize(p.MatchArgv([]string{"/opt/bin/git", "push"}, opts))
	want := []match{{prefix: "git", decision: Allow, resolved: "/opt/bin/git"}, {prefix: "git push", decision: Forbidden, resolved: "/opt/bin/git"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged match = %+v, want %+v", got, want)
	}
	if paths := p.hostExecutables["git"]; !reflect.DeepEqual(paths, []string{"/usr/bin/git", "/opt/bin/git"}) {
		t.Errorf("host executables = %q, want deduplicated union", paths)
	}
	var hosts []string
	for _, n := range p.NetworkRules() {
		hosts = append(hosts, n.Host)
	}
	if !reflect.DeepEqual(hosts, []string{"a.example", "b.example"}) {
		t.Errorf("network rules = %q", hosts)
	}
}

func TestMatchArgvEmpty(t *testing.T) {
	p := mustLoad(t, "e.rules", `prefix_rule([""])`)
	if m := p.MatchArgv(nil, MatchOptions{ResolveHostExecutables: true}); m != nil {
		t.Errorf("empty argv matched %+v", m)
	}
	if m := p.MatchArgv([]string{""}, MatchOptions{}); len(m) != 1 {
		t.Errorf("empty program token: %+v, want the empty-string rule", m)
	}
}

func TestPrefixRuleString(t *testing.T) {
	r := PrefixRule{Program: "git", Rest: [][]string{{"push"}, {"-f", "--force"}}}
	if got, want := r.String(), "git push [-f|--force]"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
