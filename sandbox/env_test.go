package sandbox

import (
	"slices"
	"testing"
)

func TestScrubEnv(t *testing.T) {
	deny := []string{"SSH_AUTH_SOCK", "*_TOKEN", "*_SECRET*", "*_PASSWORD*", "AWS_*", "GITHUB_*", "A*B*C"}
	env := []string{"PATH=/bin", "SSH_AUTH_SOCK=/s", "GH_TOKEN=x", "TOKEN=keep", "MY_SECRET_KEY=x",
		"DB_PASSWORD=x", "AWS_REGION=x", "GITHUB_TOKEN=x", "HOME=/h", "broken", "ABC=x", "AXBXC=x", "ACB=keep",
		"ssh_auth_sock=keep", "X_TOKEN_NOT=keep", "EMPTY="}
	want := []string{"PATH=/bin", "TOKEN=keep", "HOME=/h", "ACB=keep", "ssh_auth_sock=keep", "X_TOKEN_NOT=keep", "EMPTY="}
	if got := ScrubEnv(env, deny); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tt := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true}, {"a*", "a", true}, {"*a", "a", true}, {"a*a", "a", false}, {"a*a", "aa", true},
		{"*ab*", "xaby", true}, {"**", "x", true}, {"a*b*c", "abc", true}, {"a*b*c", "acb", false},
	} {
		if got := globMatch(tt.pat, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v", tt.pat, tt.s, got)
		}
	}
}
