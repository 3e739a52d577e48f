package sandbox

import (
	"slices"
	"strings"
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

func TestHasURLPassword(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{"postgres://app:s3cret@db:5432/app", true},
		{"redis://:pw@localhost:6379/0", true},
		{"amqp://u:p@h", true},
		{"mirror https://a/b, https://user:tok@host/x", true},
		{"https://user@example.com/r.git", false}, // a name, no password
		{"https://example.com/a:b@c", false},      // in the path, not the authority
		{"https://u:@host/", false},               // an empty password
		{"postgres://db/app", false},
		{"plain:value@x", false},
		{"", false},
		{"://:x@", true},
	} {
		if got := hasURLPassword(tt.v); got != tt.want {
			t.Errorf("hasURLPassword(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestScrubEnvCredentialURLs(t *testing.T) {
	env := []string{"DATABASE_URL=postgres://app:pw@db/app", "GIT_URL=https://u@h/r", "ANY_NAME=x://a:b@c"}
	want := []string{"GIT_URL=https://u@h/r"}
	if got := ScrubEnv(env, []string{EnvCredentialURLs}); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func FuzzHasURLPassword(f *testing.F) {
	f.Add("postgres://app:pw@db/app")
	f.Add("https://u@h/r")
	f.Fuzz(func(t *testing.T, v string) {
		got := hasURLPassword(v)
		// A password needs ":", "@" and "://" in the value.
		if got && !(strings.Contains(v, "://") && strings.Contains(v, "@")) {
			t.Errorf("hasURLPassword(%q) = true without a URL authority", v)
		}
	})
}
