package execpolicy

import (
	"strings"
)

// errExampleSyntax reports an example string that does not split.
var errExampleSyntax error = &sentinel{"example string has invalid shell syntax"}

// splitExample splits a match/not_match example string into words the way
// Codex does (the Rust shlex crate): blanks separate words, single quotes
// are literal, double quotes honour \$ \` \" \\ and line continuations, a
// backslash outside quotes escapes the next byte and a '#' starting a word
// begins a comment. Nothing is expanded: "$HOME" stays the five bytes
// $HOME, so an example means the same on every machine and in Codex.
// An unterminated quote or a trailing backslash is an error.
func splitExample(s string) ([]string, error) {
	var words []string
	for i := skipBlanks(s, 0); i < len(s); i = skipBlanks(s, i) {
		var b strings.Builder
	scan:
		for i < len(s) {
			c := s[i]
			i++
			switch c {
			case ' ', '\t', '\n':
				break scan
			case '\'':
				end := strings.IndexByte(s[i:], '\'')
				if end < 0 {
					return nil, errExampleSyntax
				}
				b.WriteString(s[i : i+end])
				i += end + 1
			case '"':
				var err error
				if i, err = scanDoubleQuoted(s, i, &b); err != nil {
					return nil, err
				}
			case '\\':
				if i >= len(s) {
					return nil, errExampleSyntax
				}
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
				i++
			default:
				b.WriteByte(c)
			}
		}
		words = append(words, b.String())
	}
	return words, nil
}

// skipBlanks returns the index of the first byte at or after i that starts
// a word, skipping blanks and comments.
func skipBlanks(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n':
			i++
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// scanDoubleQuoted copies the body of a double-quoted string starting at
// s[i] (just after the opening quote) into b and returns the index after
// the closing quote.
func scanDoubleQuoted(s string, i int, b *strings.Builder) (int, error) {
	for i < len(s) {
		c := s[i]
		i++
		switch c {
		case '"':
			return i, nil
		case '\\':
			if i >= len(s) {
				return 0, errExampleSyntax
			}
			switch n := s[i]; n {
			case '$', '`', '"', '\\':
				b.WriteByte(n)
			case '\n':
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			i++
		default:
			b.WriteByte(c)
		}
	}
	return 0, errExampleSyntax
}

// joinExample renders an example for an error message, quoting the words
// a shell would split or expand so that the message can be pasted back.
func joinExample(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " ")
}

// shellQuote returns w single-quoted unless it consists only of bytes that
// are never special to a POSIX shell.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
