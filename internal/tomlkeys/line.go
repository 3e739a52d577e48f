package tomlkeys

import (
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/gatedexec/gatedexec/internal/lazyregexp"
)

// tableHeader matches a [table] or [[array of tables]] line. It is
// compiled on first use: only error messages need it, and every gatedexec
// start would pay for compiling it at init.
var tableHeader = lazyregexp.New(`^\s*\[\[?\s*([A-Za-z0-9_.\s"'-]+?)\s*\]`)

// Line returns the 1-based line where key is assigned or opened as a
// table, or 1 when it cannot be found; the TOML library does not expose key
// positions. It tracks the current [table] so that a key of the same name
// in two tables is found in the right one.
func Line(src []byte, key toml.Key) int {
	if len(key) == 0 {
		return 1
	}
	table := ""
	want := strings.Join(key, ".")
	for i, line := range strings.Split(string(src), "\n") {
		if m := tableHeader().FindStringSubmatch(line); m != nil {
			table = normalizeKey(m[1])
			if table == want {
				return i + 1
			}
			continue
		}
		eq := strings.IndexByte(line, '=')
		if eq < 0 {
			continue
		}
		k := normalizeKey(line[:eq])
		if k == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		full := k
		if table != "" {
			full = table + "." + k
		}
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
	}
	return 1
}

// normalizeKey turns a TOML key as written (`a . "b"`) into "a.b".
func normalizeKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
