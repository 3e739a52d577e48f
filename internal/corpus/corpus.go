// Package corpus reads the adversarial test data of the policy engine,
// shared/corpus/policy_bypass.tsv, for the tests that run it.
package corpus

import (
	"fmt"
	"strconv"
	"strings"
)

// DecodeCommand undoes the escaping of a command column of
// shared/corpus/policy_bypass.tsv (its ESCAPING section: \\, \t, \n,
// \r and \u{HEX}); anything else after a backslash is an error.
func DecodeCommand(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("dangling backslash")
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'u':
			end := strings.IndexByte(s[i:], '}')
			if i+1 >= len(s) || s[i+1] != '{' || end < 0 {
				return "", fmt.Errorf("bad \\u escape at %d", i)
			}
			n, err := strconv.ParseUint(s[i+2:i+end], 16, 32)
			if err != nil {
				return "", fmt.Errorf("bad \\u escape: %w", err)
			}
			b.WriteRune(rune(n))
			i += end
		default:
			return "", fmt.Errorf("unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}
