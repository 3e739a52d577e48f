// Package jsonstr writes JSON strings, and objects and lists of them
// (Object), exactly as encoding/json does with HTML escaping off, for the
// few outputs gatedexec writes by hand:
// encoding/json reflects over a type the first time it meets it, which
// cost a short-lived command half a millisecond.
package jsonstr

import "unicode/utf8"

const hex = "0123456789abcdef"

// Append appends s to dst as a quoted JSON string, escaped as
// encoding/json escapes it with SetEscapeHTML(false): \" \\ \b \f \n \r
// \t, other control characters as \u00xx, U+2028 and U+2029 as \u2028 and
// \u2029, and each invalid UTF-8 byte as \ufffd.
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
