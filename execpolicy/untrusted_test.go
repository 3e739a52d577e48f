package execpolicy

import "testing"

func TestRestrictOnly(t *testing.T) {
	p, err := Load("ws.rules", []byte(`
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["rm"], decision="forbidden")
host_executable(name="git", paths=["/tmp/evil/git"])
network_rule(host="example.com", protocol="https", decision="allow")
network_rule(host="evil.example", protocol="https", decision="forbidden")
`))
	if err != nil {
		t.Fatal(err)
	}
	q := p.RestrictOnly()
	tests := []struct {
		argv []string
		want Decision // 0: no match
	}{
		{[]string{"git", "status"}, 0},
		{[]string{"git", "push"}, Prompt},
		{[]string{"rm", "-rf", "/"}, Forbidden},
	}
	for _, tt := range tests {
		if got := Strictest(q.MatchArgv(tt.argv, MatchOptions{})); got != tt.want {
			t.Errorf("%v: got %v, want %v", tt.argv, got, tt.want)
		}
	}
	if q.Len() != 2 {
		t.Errorf("Len = %d, want 2", q.Len())
	}
	if len(q.hostExecutables) != 0 {
		t.Errorf("host executables kept: %v", q.hostExecutables)
	}
	if n := q.NetworkRules(); len(n) != 1 || n[0].Decision != Forbidden {
		t.Errorf("network rules = %+v, want only the forbidden one", n)
	}
	if q.Digest() != p.Digest() {
		t.Error("digest must still cover the untrusted sources")
	}
}
