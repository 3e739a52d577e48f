package sandbox

import (
	"slices"
	"testing"
)

func TestWithControl(t *testing.T) {
	base := &Profile{Name: "p", ReadAll: true, Write: []string{"/home/u", "/tmp"}, Protect: []string{"/home/u/.git/config"}}
	tests := []struct {
		name    string
		p       *Profile
		control []string
		protect []string
	}{
		{"inside a write root", base, []string{"/home/u/.config/gatedexec"}, []string{"/home/u/.git/config", "/home/u/.config/gatedexec"}},
		{"outside every write root", base, []string{"/etc/gatedexec", "/var/log/ge.jsonl"}, []string{"/home/u/.git/config"}},
		{"already protected", &Profile{Write: []string{"/w"}, Protect: []string{"/w/c"}}, []string{"/w/c/rules"}, []string{"/w/c"}},
		{"relative and empty ignored", base, []string{"", "rel/x"}, []string{"/home/u/.git/config"}},
		{"unrestricted untouched", &Profile{Unrestricted: true, Write: []string{"/"}}, []string{"/home/u/.config/gatedexec"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.p.Protect)
			q := WithControl(tt.p, tt.control)
			if !slices.Equal(q.Protect, tt.protect) {
				t.Errorf("Protect = %q, want %q", q.Protect, tt.protect)
			}
			if !slices.Equal(tt.p.Protect, before) {
				t.Errorf("input profile modified: %q", tt.p.Protect)
			}
		})
	}
}

func TestPlanNeverUnprotectsControl(t *testing.T) {
	p := WithControl(&Profile{Name: "p", ReadAll: true, Write: []string{"/home/u"}}, []string{"/home/u/.config/gatedexec"})
	if _, ok := Plan(p, []Denial{{Kind: KindFSWrite, Path: "/home/u/.config/gatedexec/rules/default.rules"}}); ok {
		t.Fatal("Plan offered an escalation for a control path")
	}
	// A write denial elsewhere still escalates, and the control path stays
	// protected under a granted parent.
	q := WithControl(&Profile{Name: "q", ReadAll: true, Write: []string{"/tmp"}}, []string{"/var/tmp/ge/state"})
	if len(q.Protect) != 0 {
		t.Fatalf("Protect = %q before the grant, want none", q.Protect)
	}
	e, ok := Plan(q, []Denial{{Kind: KindFSWrite, Path: "/var/tmp"}})
	if !ok || len(e.Changes) != 1 || e.Changes[0] != (Change{Kind: GrantWrite, Path: "/var/tmp"}) {
		t.Fatalf("Plan = %+v, %v; want write access to /var/tmp", e, ok)
	}
	r := e.Apply(q)
	if !slices.Contains(r.Write, "/var/tmp") || !slices.Contains(r.Protect, "/var/tmp/ge/state") {
		t.Errorf("Apply: Write %q Protect %q; want /var/tmp writable and /var/tmp/ge/state protected", r.Write, r.Protect)
	}
}
