package execpolicy

import (
	"fmt"
	"strings"
)

// QuoteArgv renders argv as bash words that read back as exactly argv,
// for messages, prompts and reasons: `touch '$(id)' 'semi;colon'` rather
// than `touch $(id) semi;colon`, which shows another command.
func QuoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = QuoteWord(a)
	}
	return strings.Join(parts, " ")
}

// QuoteWord quotes one word for bash: bare when it holds only characters
// no shell treats specially, in single quotes when it is printable ASCII,
// else as $'...' with every byte outside printable ASCII written \xHH (an
// escape sequence, an invalid UTF-8 byte, a look-alike letter such as a
// Cyrillic і all show as what they are, not as what they look like).
func QuoteWord(s string) string {
	if s == "" {
		return "''"
	}
	plain, printable := true, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			printable = false
		}
		if !wordSafe(c) {
			plain = false
		}
	}
	switch {
	case plain:
		return s
	case printable:
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// wordSafe reports whether c needs no quoting anywhere in a bash word.
func wordSafe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_@%+=:,./-", c) >= 0
}
