package sandbox

import (
	"slices"
	"strings"
)

// EnvCredentialURLs is the env_deny entry that matches by value, not by
// name: a variable holding a URL with a password in it
// (DATABASE_URL=postgres://app:secret@db/app), whatever it is called.
const EnvCredentialURLs = ":credential-urls"

// ScrubEnv returns env without the variables whose names match a pattern
// in deny. A pattern is a name or a glob where * matches any run of
// characters (no other metacharacters); matching ignores ASCII case: a
// github_token is as secret as a GITHUB_TOKEN, and a deny list errs on
// the side of removing. The entry EnvCredentialURLs removes variables by
// their value. Entries without "=" are dropped: they are not well-formed
// and a child could read them in surprising ways.
func ScrubEnv(env, deny []string) []string {
	// Each pattern and name is upper-cased once, not once per pair, and
	// each pattern split at its stars once.
	pats := make([]envGlob, 0, len(deny))
	urls := false
	for _, pat := range deny {
		if pat == EnvCredentialURLs {
			urls = true
		} else {
			pats = append(pats, compileGlob(strings.ToUpper(pat)))
		}
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || urls && hasURLPassword(value) || deniedName(strings.ToUpper(name), pats) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// SetEnv returns env with the NAME=VALUE entries of set in place of its
// own values of those names: getenv(3) takes the first of a name, and
// some programs the last.
func SetEnv(env, set []string) []string {
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// deniedName reports whether the upper-cased name matches one of the
// upper-cased patterns.
func deniedName(name string, pats []envGlob) bool {
	for i := range pats {
		g := &pats[i]
		// A name must start with the head's first byte and end with the
		// tail's last: most patterns fail there, without a call.
		if g.head != "" && (name == "" || name[0] != g.head[0]) ||
			g.tail != "" && (name == "" || name[len(name)-1] != g.tail[len(g.tail)-1]) {
			continue
		}
		if g.match(name) {
			return true
		}
	}
	return false
}

// hasURLPassword reports whether s holds "scheme://user:password@" anywhere,
// also inside a list of URLs or a connection string that starts otherwise.
func hasURLPassword(s string) bool {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return false
		}
		s = s[i+3:]
		// The authority ends at the first '/', '?', '#' or space; a
		// password is what lies between its first ':' and its last '@'.
		end := strings.IndexAny(s, "/?# \t\n")
		if end < 0 {
			end = len(s)
		}
		auth := s[:end]
		if at := strings.LastIndexByte(auth, '@'); at > 0 {
			if colon := strings.IndexByte(auth[:at], ':'); colon >= 0 && colon < at-1 {
				return true
			}
		}
	}
}

// envGlob is a deny pattern split at its stars (* matches any run of
// characters), so that matching a name is a prefix, a suffix and a search
// for each piece between, in order. Every run matches each of ~40
// variables against each of ~40 patterns, after the helper's fork, where
// the runner's side is the longer: cutting each pattern again for every
// name took 17 µs (BenchmarkScrubEnv), now 9 with deniedName's test of
// the first and last bytes.
type envGlob struct {
	// star says whether the pattern has a '*'; without one it is head.
	star bool
	// head and tail are the pieces before the first '*' and after the
	// last; mid is what lies between those stars, itself starred.
	head, tail, mid string
}

// compileGlob splits pat at its stars.
func compileGlob(pat string) envGlob {
	head, rest, star := strings.Cut(pat, "*")
	if !star {
		return envGlob{head: pat}
	}
	g := envGlob{star: true, head: head, tail: rest}
	if i := strings.LastIndexByte(rest, '*'); i >= 0 {
		g.tail, g.mid = rest[i+1:], rest[:i]
	}
	return g
}

// match reports whether s matches the pattern: its head starts s and its
// tail ends it without overlapping, and the pieces between are found in
// what lies between them, each after the one before (leftmost, which
// leaves the most room for the rest).
func (g *envGlob) match(s string) bool {
	if !g.star {
		return s == g.head
	}
	if len(s) < len(g.head)+len(g.tail) || !strings.HasPrefix(s, g.head) || !strings.HasSuffix(s, g.tail) {
		return false
	}
	s = s[len(g.head) : len(s)-len(g.tail)]
	for mid := g.mid; mid != ""; {
		var p string
		p, mid, _ = strings.Cut(mid, "*")
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
