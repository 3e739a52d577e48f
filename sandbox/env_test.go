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
		"ssh_auth_sock=x", "github_token=x", "My_Secret=x", "path_b=keep", "X_TOKEN_NOT=keep", "EMPTY="}
	want := []string{"PATH=/bin", "TOKEN=keep", "HOME=/h", "ACB=keep", "path_b=keep", "X_TOKEN_NOT=keep", "EMPTY="}
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
		{"*ab*b", "xab", false}, {"*a*a", "a", false}, {"a**b", "ab", true}, {"*_TOKEN_*", "GH_TOKEN_", true},
		{"*_TOKEN_*", "GH_TOKEN", false}, {"ab*ba", "aba", false}, {"ab*ba", "abba", true},
	} {
		if g := compileGlob(tt.pat); g.match(tt.s) != tt.want {
			t.Errorf("%q matching %q = %v", tt.pat, tt.s, !tt.want)
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

// splitGlobMatch is the glob match as it was first written, by
// strings.Split: the reference FuzzGlobMatch holds envGlob to.
func splitGlobMatch(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, last) && len(s) >= len(last)
}

func FuzzGlobMatch(f *testing.F) {
	for _, seed := range [][2]string{{"*_TOKEN", "GH_TOKEN"}, {"AWS_*", "AWS_SECRET"}, {"*KEY*", "MY_KEY_X"}, {"a*a", "a"}, {"**", ""}, {"x", "x"},
		{"", ""}, {"x*", ""}, {"*x", ""}, {"*_TOKEN_*", "A_TOKEN_B"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pat, s string) {
		want := splitGlobMatch(pat, s)
		if g := compileGlob(pat); g.match(s) != want {
			t.Fatalf("%q matching %q = %v, the reference says %v", pat, s, g.match(s), want)
		}
		// deniedName's first- and last-byte test rules out only what
		// cannot match.
		if got := deniedName(s, []envGlob{compileGlob(pat)}); got != want {
			t.Fatalf("deniedName(%q, [%q]) = %v, the reference says %v", s, pat, got, want)
		}
	})
}

func TestSetEnv(t *testing.T) {
	for _, tt := range []struct {
		env, set, want []string
	}{
		{[]string{"A=1", "PAGER=less", "B=2", "PAGER=more"}, []string{"PAGER=cat"}, []string{"A=1", "B=2", "PAGER=cat"}},
		{[]string{"LESSSECURE_ALLOW=!"}, []string{"LESSSECURE_ALLOW="}, []string{"LESSSECURE_ALLOW="}},
		// A name that only starts like one set is kept; an entry without
		// "=" of that name goes.
		{[]string{"PAGERX=1", "PAGER"}, []string{"PAGER=cat"}, []string{"PAGERX=1", "PAGER=cat"}},
		{[]string{"A=1"}, nil, []string{"A=1"}},
	} {
		if got := SetEnv(tt.env, tt.set); !slices.Equal(got, tt.want) {
			t.Errorf("SetEnv(%q, %q) = %q, want %q", tt.env, tt.set, got, tt.want)
		}
	}
}

// BenchmarkScrubEnv scrubs an agent's environment of 40 variables with
// the deny list of the built-in profiles (profiles/builtin/read-only.toml),
// as every sandboxed start does after the helper's fork.
func BenchmarkScrubEnv(b *testing.B) {
	deny := []string{
		"SSH_AUTH_SOCK", "GPG_AGENT_INFO",
		"*_TOKEN", "*_TOKEN_*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_PWD", "*_PASS",
		"*_API_KEY", "*_API_KEY_*", "*_APIKEY", "*_ACCESS_KEY*", "*_PRIVATE_KEY*", "*_AUTH_KEY*", "*_CREDENTIAL*", "*_DSN",
		"ANTHROPIC_*", "OPENAI_*", "AZURE_OPENAI_*", "GOOGLE_*", "GEMINI_*", "MISTRAL_*", "GROQ_*", "COHERE_*",
		"DEEPSEEK_*", "XAI_*", "OPENROUTER_*", "TOGETHER_*", "REPLICATE_*", "PERPLEXITY_*", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
		"AWS_*", "AZURE_*", "GITHUB_*", "GITLAB_*", "NPM_TOKEN", "NODE_AUTH_TOKEN", "DOCKER_AUTH_CONFIG", "VAULT_*",
		EnvCredentialURLs,
	}
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/bash",
		"TERM=xterm-256color", "LANG=C.UTF-8", "PWD=/home/u/src", "OLDPWD=/home/u", "SHLVL=2", "EDITOR=vi",
		"PAGER=less", "LESS=-R", "TMPDIR=/tmp", "XDG_RUNTIME_DIR=/run/user/1000", "XDG_CONFIG_HOME=/home/u/.config",
		"GOPATH=/home/u/go", "GOFLAGS=-mod=mod", "GOCACHE=/home/u/.cache/go-build", "CARGO_HOME=/home/u/.cargo",
		"NODE_OPTIONS=--max-old-space-size=4096", "NVM_DIR=/home/u/.nvm", "VIRTUAL_ENV=/home/u/src/.venv",
		"PYTHONPATH=/home/u/src", "CI=true", "GIT_AUTHOR_NAME=u", "GIT_EDITOR=true", "COLUMNS=120", "LINES=40",
		"ANTHROPIC_API_KEY=sk-x", "OPENAI_API_KEY=sk-y", "GH_TOKEN=ghp_z", "AWS_PROFILE=dev", "AWS_REGION=eu-west-1",
		"DATABASE_URL=postgres://app:pw@db/app", "REDIS_URL=redis://cache:6379", "SSH_AUTH_SOCK=/tmp/ssh-a/agent.1",
		"LS_COLORS=" + strings.Repeat("di=01;34:", 100), "HISTSIZE=10000", "MAIL=/var/mail/u"}
	for b.Loop() {
		ScrubEnv(env, deny)
	}
}
