package sandbox

import "strings"

// ScrubEnv returns env without the variables whose names match a pattern
// in deny. A pattern is a name or a glob where * matches any run of
// characters (no other metacharacters); matching is case-sensitive, as
// environment names are. Entries without "=" are dropped: they are not
// well-formed and a child could read them in surprising ways.
func ScrubEnv(env, deny []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || denied(name, deny) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func denied(name string, deny []string) bool {
	for _, pat := range deny {
		if globMatch(pat, name) {
			return true
		}
	}
	return false
}

// globMatch matches s against pat, where * matches any run of characters.
func globMatch(pat, s string) bool {
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
