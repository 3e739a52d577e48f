package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox/egress"
)

func TestPlan(t *testing.T) {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Plan names real paths; the temporary directory may be a link
	// (/var/folders on macOS).
	home, err := filepath.EvalSymlinks(t.TempDir())
	must(err)
	must(os.MkdirAll(filepath.Join(home, ".cache"), 0o755))
	must(os.MkdirAll(filepath.Join(home, "proj/.git/hooks"), 0o755))
	must(os.WriteFile(filepath.Join(home, "notes.txt"), nil, 0o644))
	must(os.WriteFile(filepath.Join(home, "data.csv"), nil, 0o644))
	proj := filepath.Join(home, "proj")
	p := &Profile{
		ReadAll: true, Write: []string{proj},
		Protect: []string{filepath.Join(proj, ".git/hooks")},
		Hide:    []string{filepath.Join(home, ".ssh")},
		Network: NetworkOff,
	}
	narrow := &Profile{Read: []string{"/usr"}, Write: []string{proj}, Network: NetworkOff}

	tests := []struct {
		name    string
		p       *Profile
		denials []Denial
		want    []Change
		line    string
	}{
		{"missing dir: nearest existing dir", p,
			[]Denial{{Kind: KindFSWrite, Path: filepath.Join(home, ".cache/pip/http/x")}},
			[]Change{{Kind: GrantWrite, Path: filepath.Join(home, ".cache")}},
			"write access to " + filepath.Join(home, ".cache")},
		{"existing file: its directory", p,
			[]Denial{{Kind: KindFSWrite, Path: filepath.Join(home, "notes.txt")}},
			[]Change{{Kind: GrantWrite, Path: home}}, ""},
		{"existing dir: itself", p,
			[]Denial{{Kind: KindFSWrite, Path: filepath.Join(home, ".cache")}},
			[]Change{{Kind: GrantWrite, Path: filepath.Join(home, ".cache")}}, ""},
		{"network", p, []Denial{{Kind: KindNetConnect}, {Kind: KindNetBind}},
			[]Change{{Kind: GrantNetwork}}, "network access"},
		{"protect is explicit", p,
			[]Denial{{Kind: KindFSWrite, Path: filepath.Join(proj, ".git/hooks/pre-commit")}},
			[]Change{{Kind: Unprotect, Path: filepath.Join(proj, ".git/hooks")}},
			"write access to protected " + filepath.Join(proj, ".git/hooks")},
		// Issue 11 item 14: a hidden path is hidden on purpose, and for
		// one missing on the host the only "fix" was write access to
		// all of HOME: no escalation for it, whatever the kind.
		{"hidden: nothing offered", p,
			[]Denial{{Kind: KindFSRead, Path: filepath.Join(home, ".ssh/id_rsa")}}, nil, ""},
		{"hidden missing path: not HOME", p,
			[]Denial{{Kind: KindFSHidden, Path: filepath.Join(home, ".ssh/x")}, {Kind: KindFSWrite, Path: filepath.Join(home, ".ssh/x")}}, nil, ""},
		{"narrow read grants the file", narrow,
			[]Denial{{Kind: KindFSRead, Path: filepath.Join(home, "data.csv")}},
			[]Change{{Kind: GrantRead, Path: filepath.Join(home, "data.csv")}}, ""},
		// Only "/" would do: it is granted, and protect, hide and the
		// network stay as they were (dropping the sandbox would not).
		{"root only: write access to /", p,
			[]Denial{{Kind: KindFSWrite, Path: "/no-such-top-level-dir/x"}, {Kind: KindFSWrite, Path: filepath.Join(home, ".cache/a")}},
			[]Change{{Kind: GrantWrite, Path: "/"}}, "write access to /"},
		{"combined and deduplicated", p,
			[]Denial{{Kind: KindFSWrite, Path: filepath.Join(home, ".cache/a")}, {Kind: KindNetConnect},
				{Kind: KindFSWrite, Path: filepath.Join(home, ".cache/b")}, {Kind: KindNetConnect}},
			[]Change{{Kind: GrantWrite, Path: filepath.Join(home, ".cache")}, {Kind: GrantNetwork}},
			"write access to " + filepath.Join(home, ".cache") + "; network access"},
		{"covered grant dropped", p,
			[]Denial{{Kind: KindFSWrite, Path: filepath.Join(home, ".cache")}, {Kind: KindFSWrite, Path: filepath.Join(home, "notes.txt")}},
			[]Change{{Kind: GrantWrite, Path: home}}, ""},
		{"syscall: nothing fixes it", p, []Denial{{Kind: KindSyscall, Path: "ptrace"}}, nil, ""},
		{"other: nothing fixes it", p, []Denial{{Kind: KindOther, Path: "com.apple.x"}}, nil, ""},
		{"already granted", p, []Denial{{Kind: KindFSWrite, Path: filepath.Join(proj, "x")}}, nil, ""},
		{"unrestricted", &Profile{Unrestricted: true}, []Denial{{Kind: KindNetConnect}}, nil, ""},
		{"no denials", p, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := Plan(tt.p, tt.denials)
			if tt.want == nil {
				if ok {
					t.Fatalf("want no plan, got %v", e)
				}
				return
			}
			if !ok || !slices.Equal(e.Changes, tt.want) {
				t.Fatalf("got %+v %v, want %+v", e, ok, tt.want)
			}
			if tt.line != "" && e.String() != tt.line {
				t.Errorf("String() = %q, want %q", e.String(), tt.line)
			}
			// Applying the plan must remove every denial it addressed.
			q := e.Apply(tt.p)
			for _, d := range tt.denials {
				if d.Kind == KindSyscall || d.Kind == KindOther {
					continue
				}
				res := &Result{ExitCode: 1, StderrTail: []byte(line(d))}
				if left := Detect(q, res, "/"); len(left) != 0 {
					t.Errorf("after Apply, %v still detected: %v", d, left)
				}
			}
		})
	}
}

// line renders a denial as a typical tool message.
func line(d Denial) string {
	switch d.Kind {
	case KindFSWrite:
		return "touch: cannot touch '" + d.Path + "': Permission denied"
	case KindFSRead:
		return "cat: " + d.Path + ": Permission denied"
	case KindNetBind:
		return "listen tcp :80: bind: permission denied"
	}
	return "curl: (6) Could not resolve host: example.com"
}

func TestApplyCopies(t *testing.T) {
	p := &Profile{ReadAll: true, Write: []string{"/w"}, Protect: []string{"/w/p"}, Hide: []string{"/h"}, Network: NetworkOff, EnvDeny: []string{"X"}}
	e := &Escalation{Changes: []Change{{Kind: GrantWrite, Path: "/x"}, {Kind: Unprotect, Path: "/w/p"}, {Kind: Unhide, Path: "/h"}, {Kind: GrantNetwork}}}
	q := e.Apply(p)
	if !slices.Equal(p.Write, []string{"/w"}) || len(p.Protect) != 1 || len(p.Hide) != 1 || p.Network != NetworkOff {
		t.Errorf("Apply modified its input: %+v", p)
	}
	if !slices.Equal(q.Write, []string{"/w", "/x"}) || len(q.Protect) != 0 || len(q.Hide) != 0 || q.Network != NetworkOn {
		t.Errorf("Apply result: %+v", q)
	}
	p.Control = []string{"/w/rules"}
	f := (&Escalation{Changes: []Change{{Kind: GrantWrite, Path: "/"}}}).Apply(p)
	if f.Unrestricted || !slices.Equal(f.Hide, []string{"/h"}) || f.Network != NetworkOff ||
		!slices.Equal(f.Protect, []string{"/w/p", "/w/rules"}) || !slices.Equal(f.EnvDeny, []string{"X"}) {
		t.Errorf("write access to /: %+v, want the rest of the profile kept and its control path protected", f)
	}
}

// TestEscalationStringUnambiguous: the text an escalation's request id
// and session key bind names its changes only one way.
func TestEscalationStringUnambiguous(t *testing.T) {
	one := &Escalation{Changes: []Change{{Kind: GrantWrite, Path: "/a; write access to /b"}}}
	two := &Escalation{Changes: []Change{{Kind: GrantWrite, Path: "/a"}, {Kind: GrantWrite, Path: "/b"}}}
	if one.String() == two.String() {
		t.Fatalf("one path and two paths both read %q", one.String())
	}
	for path, want := range map[string]string{
		"/home/u/.cache/pip": "write access to /home/u/.cache/pip",
		"/tmp/a\nb":          `write access to "/tmp/a\nb"`,
		`/tmp/"q"`:           `write access to "/tmp/\"q\""`,
	} {
		if got := (Change{Kind: GrantWrite, Path: path}).String(); got != want {
			t.Errorf("String(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestPlanResolvesSymlinks checks that an escalation names the directory
// the backend will grant, not a symlink to it: Landlock and Seatbelt
// follow links, so "write access to /proc/self/cwd/sub" (or a link under a
// symlinked workspace) would show one path and grant another.
func TestPlanResolvesSymlinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	secret := filepath.Join(base, "secret")
	ctl := filepath.Join(base, "control")
	for _, d := range []string{ws, secret, ctl, filepath.Join(base, "out")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"out": filepath.Join(base, "out"), "sec": secret, "ctl": ctl, "loop": filepath.Join(ws, "loop")}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A host path that leads into the workspace through a symlink, as
	// /proc/self/cwd does for the process that plans.
	via := filepath.Join(base, "via")
	if err := os.Symlink(ws, via); err != nil {
		t.Fatal(err)
	}
	p := &Profile{ReadAll: true, Write: []string{ws}, Hide: []string{secret}, Control: []string{ctl}, Network: NetworkOff}
	tests := []struct {
		name string
		path string
		want []Change
	}{
		{"link to a dir outside", filepath.Join(via, "out/x"), []Change{{Kind: GrantWrite, Path: filepath.Join(base, "out")}}},
		{"link to a hidden dir", filepath.Join(via, "sec/x"), nil},
		{"link to a control dir", filepath.Join(via, "ctl/x"), nil},
		{"symlink loop", filepath.Join(via, "loop/x"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := Plan(p, []Denial{{Kind: KindFSWrite, Path: tc.path}})
			var got []Change
			if ok {
				got = e.Changes
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Plan(write %s) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

func TestPlanHosts(t *testing.T) {
	p := &Profile{Network: NetworkProxy, Hosts: egress.Policy{Rules: []egress.Rule{{Pattern: "bad.test", Decision: egress.Deny}}}}
	denials := []Denial{
		{Kind: KindNet, Host: "new.test", Port: 443, Evidence: egress.WhyNoRule},
		{Kind: KindNet, Host: "new.test", Port: 0, Evidence: egress.WhyNoRule},
		{Kind: KindNet, Host: "bad.test", Port: 443, Evidence: "denied by deny_hosts"},
		{Kind: KindNet, Host: "rebind.test", Port: 443, Evidence: "resolves only to refused addresses: 10.0.0.1 (private)"},
		{Kind: KindNet, Host: "198.18.0.9", Port: 80, Evidence: egress.WhyNoRule},
	}
	e, ok := Plan(p, denials)
	if !ok || len(e.Changes) != 1 || e.Changes[0] != (Change{Kind: GrantHost, Host: "new.test"}) || e.String() != "connections to new.test" {
		t.Fatalf("Plan = %+v, %v; want connections to new.test alone", e, ok)
	}
	q := e.Apply(p)
	if d, _ := q.Hosts.Judge("new.test"); d != egress.Allow {
		t.Errorf("after Apply new.test is %v", d)
	}
	if d, _ := p.Hosts.Judge("new.test"); d != egress.Deny || len(p.Hosts.Rules) != 1 {
		t.Errorf("Apply modified its input: %+v", p.Hosts)
	}
	if _, ok := Plan(&Profile{Network: NetworkOff}, denials[:1]); ok {
		t.Error("a host denial planned outside proxy mode")
	}
}
