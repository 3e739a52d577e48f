package approval

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

func TestRequestIDBindsEveryField(t *testing.T) {
	type in struct {
		argv                                          []string
		cwd, profile, pdigest, digest, escal, managed string
	}
	base := in{[]string{"git", "push"}, "/w", "workspace-write", "p1", "d1", "", ""}
	variants := []in{
		base,
		{[]string{"git push"}, "/w", "workspace-write", "p1", "d1", "", ""},
		{[]string{"git", "push", ""}, "/w", "workspace-write", "p1", "d1", "", ""},
		{[]string{"git", "pus", "h"}, "/w", "workspace-write", "p1", "d1", "", ""},
		{[]string{"git", "push"}, "/w2", "workspace-write", "p1", "d1", "", ""},
		{[]string{"git", "push"}, "/", "wworkspace-write", "p1", "d1", "", ""},
		{[]string{"git", "push"}, "/w", "read-only", "p1", "d1", "", ""},
		{[]string{"git", "push"}, "/w", "workspace-write", "p2", "d1", "", ""},
		{[]string{"git", "push"}, "/w", "workspace-write", "p1d1", "", "", ""},
		{[]string{"git", "push"}, "/w", "workspace-write", "p1", "d2", "", ""},
		{[]string{"git", "push"}, "/w", "workspace-write", "p1", "d1", "network on", ""},
		// The managed layer the request was judged under.
		{[]string{"git", "push"}, "/w", "workspace-write", "p1", "d1", "", "m1"},
		{[]string{"git", "push"}, "/w", "workspace-write", "p1", "d1", "", "m2"},
		{[]string{"git", "push"}, "/w", "workspace-write", "p1", "d1", "m1", ""},
	}
	id := func(v in) string {
		return RequestID(IDParts{Argv: v.argv, Cwd: v.cwd, Profile: v.profile, ProfileDigest: v.pdigest, PolicyDigest: v.digest, Escalation: v.escal, ManagedDigest: v.managed})
	}
	seen := map[string]int{}
	hex := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for i, v := range variants {
		id := id(v)
		if !hex.MatchString(id) {
			t.Errorf("variant %d: id %q is not 32 hex digits", i, id)
		}
		if j, dup := seen[id]; dup {
			t.Errorf("variants %d and %d share id %s", j, i, id)
		}
		seen[id] = i
	}
	if a, b := id(base), id(in{[]string{"git", "push"}, "/w", "workspace-write", "p1", "d1", "", ""}); a != b {
		t.Errorf("RequestID not deterministic: %s vs %s", a, b)
	}
}

// TestProfileDigestBindsGrants checks that profiles of one name that grant
// different access (another workspace, an edited file) digest apart.
func TestProfileDigestBindsGrants(t *testing.T) {
	base := func() *sandbox.Profile {
		return &sandbox.Profile{Name: "workspace-write", ReadAll: true, Write: []string{"/w", "/tmp"},
			Protect: []string{"/w/.git/hooks"}, Hide: []string{"/root/.ssh"}, Network: sandbox.NetworkOff}
	}
	changes := map[string]func(p *sandbox.Profile){
		"workspace": func(p *sandbox.Profile) { p.Write[0] = "/" },
		"write":     func(p *sandbox.Profile) { p.Write = append(p.Write, "/srv") },
		"protect":   func(p *sandbox.Profile) { p.Protect = nil },
		"hide":      func(p *sandbox.Profile) { p.Hide = nil },
		"network":   func(p *sandbox.Profile) { p.Network = sandbox.NetworkOn },
		"control":   func(p *sandbox.Profile) { p.Control = []string{"/etc/gatedexec"} },
		"envdeny":   func(p *sandbox.Profile) { p.EnvDeny = []string{"*_TOKEN"} },
	}
	digest := ProfileDigest
	want := digest(base())
	if want == "" || digest(base()) != want {
		t.Fatalf("ProfileDigest is empty or not deterministic: %q", want)
	}
	for name, change := range changes {
		p := base()
		change(p)
		if got := digest(p); got == want {
			t.Errorf("%s: digest unchanged (%s)", name, got)
		}
	}
}

// TestSessionKeyBindsProfileDigest checks that a session approval made
// under one resolved profile is not found for the same name resolving to
// more access.
func TestSessionKeyBindsProfileDigest(t *testing.T) {
	s, err := OpenSession(t.TempDir(), "s")
	if err != nil {
		t.Fatal(err)
	}
	r := &Request{ID: "x", Argv: []string{"touch", "/srv/f"}, Cwd: "/w", Profile: "workspace-write", ProfileDigest: "p1", Kind: KindExec}
	if err := s.Add(r); err != nil {
		t.Fatal(err)
	}
	wider := *r
	wider.ProfileDigest = "p2"
	for _, c := range []struct {
		r    *Request
		want bool
	}{{r, true}, {&wider, false}} {
		if got, err := s.Has(c.r); err != nil || got != c.want {
			t.Errorf("Has(profile digest %s) = %v, %v; want %v", c.r.ProfileDigest, got, err, c.want)
		}
	}
}

func TestRequestJSONShape(t *testing.T) {
	r := Request{ID: "x", Argv: []string{"a"}, Kind: KindExec}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	for _, k := range []string{"id", "argv", "cwd", "workspace", "profile", "decision", "reasons", "matched_rules", "proposed_rule", "kind", "denials"} {
		if _, ok := m[k]; !ok {
			t.Errorf("request JSON lacks %q: %s", k, data)
		}
	}
	for _, k := range []string{"reasons", "matched_rules", "denials"} {
		if l, ok := m[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %#v, want []", k, m[k])
		}
	}
	if m["proposed_rule"] != nil {
		t.Errorf("proposed_rule = %v, want null", m["proposed_rule"])
	}
}

func TestResume(t *testing.T) {
	r := &Request{ID: "abc123", ProposedRule: []string{"git", "status"}}
	noRule := &Request{ID: "abc123"}
	for _, tc := range []struct {
		name           string
		r              *Request
		approve, deny  []string
		want           Outcome
		ok             bool
		reasonContains string
	}{
		{"none", r, nil, nil, "", false, ""},
		{"plain", r, []string{"abc123"}, nil, Approved, true, ""},
		{"once", r, []string{"abc123:once"}, nil, Approved, true, ""},
		{"session", r, []string{"abc123:session"}, nil, ApprovedForSession, true, ""},
		{"always", r, []string{"abc123:always"}, nil, ApprovedAlways, true, ""},
		{"always without rule", noRule, []string{"abc123:always"}, nil, Denied, true, "no rule"},
		{"bad scope", r, []string{"abc123:forever"}, nil, Denied, true, "invalid approval scope"},
		{"prefix id", r, []string{"abc12"}, nil, Denied, true, "mismatched approval id"},
		{"longer id", r, []string{"abc1234"}, nil, Denied, true, "mismatched approval id"},
		{"other id", r, []string{"zzz:once"}, nil, Denied, true, "mismatched approval id"},
		{"deny", r, nil, []string{"abc123"}, Denied, true, "--deny"},
		{"deny other", r, nil, []string{"zzz"}, Denied, true, "mismatched"},
		{"deny wins", r, []string{"abc123"}, []string{"abc123"}, Denied, true, "--deny"},
		{"conflict", r, []string{"abc123:once", "abc123:always"}, nil, Denied, true, "conflicting"},
	} {
		resp, ok := Resume(tc.r, tc.approve, tc.deny)
		if ok != tc.ok || resp.Outcome != tc.want || !strings.Contains(resp.Reason, tc.reasonContains) {
			t.Errorf("%s: Resume = %+v, %v; want %s, %v, reason containing %q", tc.name, resp, ok, tc.want, tc.ok, tc.reasonContains)
		}
		if ok && resp.ID != tc.r.ID {
			t.Errorf("%s: response id %q", tc.name, resp.ID)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"approve", []string{"approve"}},
		{"  /usr/bin/ask  --mode  strict ", []string{"/usr/bin/ask", "--mode", "strict"}},
		{`ask 'a b' "c d" e\ f`, []string{"ask", "a b", "c d", "e f"}},
		{`ask "q\"x" 'it''s'`, []string{"ask", `q"x`, "its"}},
		{`ask a=b --x=y`, []string{"ask", "a=b", "--x=y"}},
		// Quote removal is execpolicy.QuoteRemoval; POSIX has no brace expansion.
		{`ask a\\b "x\$y" {a,b}`, []string{"ask", `a\b`, "x$y", "{a,b}"}},
		{`ask "$HOME"`, nil},
		{`ask $HOME`, nil},
		{"ask `id`", nil},
		{`ask $(id)`, nil},
		{`ask *.txt`, nil},
		{`ask ~/x`, nil},
		{`ask; rm x`, nil},
		{`ask | sh`, nil},
		{`ask > out`, nil},
		{`X=1 ask`, nil},
		{`ask &`, nil},
		{`ask $'\n'`, nil},
		{``, nil},
		{`ask 'unterminated`, nil},
		{"ask\x00", nil},
	} {
		got, err := SplitCommand(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("SplitCommand(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") || len(got) != len(tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseApprover(t *testing.T) {
	for _, tc := range []struct {
		spec string
		ok   bool
	}{
		{"deny", true}, {"defer", true}, {"exec:ask --x", true},
		{"", false}, {"exec:", false}, {"exec:$X", false}, {"ttyx", false}, {"DENY", false},
	} {
		_, err := ParseApprover(tc.spec, Options{})
		if (err == nil) != tc.ok {
			t.Errorf("ParseApprover(%q) err = %v, want ok=%v", tc.spec, err, tc.ok)
		}
	}
}
