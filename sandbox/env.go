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
	// Each pattern and name is upper-cased once, not once per pair.
	pats := make([]string, 0, len(deny))
	urls := false
	for _, pat := range deny {
		if pat == EnvCredentialURLs {
			urls = true
		} else {
			pats = append(pats, strings.ToUpper(pat))
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
func deniedName(name string, pats []string) bool {
	for _, pat := range pats {
		if globMatch(pat, name) {
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

// globMatch matches s against pat, where * matches any run of characters.
// It allocates nothing: every run matches each variable against every
// deny pattern.
func globMatch(pat, s string) bool {
	first, rest, star := strings.Cut(pat, "*")
	if !star {
		return pat == s
	}
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for {
		part, more, star := strings.Cut(rest, "*")
		if !star {
			// The last piece ends s; the ones before matched leftmost.
			return strings.HasSuffix(s, part)
		}
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s, rest = s[i+len(part):], more
	}
}
