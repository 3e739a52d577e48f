package execpolicy

import (
	"bytes"
	"errors"
	"strings"

	"go.starlark.net/syntax"
)

// syntaxErrorAtToken moves the position of a Starlark parse error of the
// "got X, want Y" kind from one past the offending token, where the
// parser reports it (its scanner has read the token by then), to the
// token's first character, where a person looks for it. Other errors, and
// positions no token of the line ends at, are returned as they are.
func syntaxErrorAtToken(src []byte, err error) error {
	var se syntax.Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.Msg, "got ") || se.Pos.Line < 1 || se.Pos.Col < 2 {
		return err
	}
	lines := bytes.Split(src, []byte("\n"))
	if int(se.Pos.Line) > len(lines) {
		return err
	}
	start, ok := tokenEndingAt(lines[se.Pos.Line-1], int(se.Pos.Col)-1)
	if !ok {
		return err
	}
	se.Pos.Col = int32(start + 1)
	return se
}

// tokenEndingAt scans line as Starlark tokens and returns the 0-based
// byte offset where the token ending just before offset end starts.
func tokenEndingAt(line []byte, end int) (int, bool) {
	isIdent := func(c byte) bool {
		return c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
	}
	for i := 0; i < len(line) && i < end; {
		c := line[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#':
			return 0, false
		case c == '"' || c == '\'':
			i++
			for i < len(line) && line[i] != c {
				if line[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case isIdent(c):
			for i < len(line) && isIdent(line[i]) {
				i++
			}
			// A string prefix: r"..." or b'...'.
			if i < len(line) && (line[i] == '"' || line[i] == '\'') && i-start <= 2 {
				continue
			}
		default:
			i++
			if i < len(line) && strings.Contains("=*/<>", string(line[i])) && strings.Contains("=!<>*/+-%&|^", string(c)) {
				i++
			}
		}
		if i == end {
			return start, true
		}
	}
	return 0, false
}
