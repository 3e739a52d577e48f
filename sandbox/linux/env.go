//go:build linux

package linux

import (
	"path"
	"strings"
)

// ScrubEnv returns env without the variables whose names match a pattern
// of deny ("*" matches any run of characters, nothing else is special).
// Entries without "=" are dropped: they name no variable and exec would
// pass them on verbatim.
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

// globMatch matches name against pat where only "*" is special; the other
// path.Match metacharacters are escaped so they match themselves.
func globMatch(pat, name string) bool {
	var b strings.Builder
	for _, r := range pat {
		switch r {
		case '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	ok, err := path.Match(b.String(), name)
	return err == nil && ok
}
