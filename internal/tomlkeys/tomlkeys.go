// Package tomlkeys decodes TOML files into their schema, holding them to
// the exact key spellings of that schema, and knows where each key is
// written.
//
// The TOML library falls back to a case-insensitive match when no struct
// field has a key's exact name, and keys are case-sensitive in TOML: so
// "[Filesystem] Write = [':all']" below "[filesystem] write = [...]" is
// two tables to a reader and one to the decoder, which takes whichever it
// meets last. A security file must mean one thing, so Decode refuses a key
// that reaches a field only by that fallback.
//
// The library reports where a syntax error is, but neither where a key it
// did not know is written nor where the value a custom type refused is:
// this package reads the document's keys with the library's own parser
// (unstable.Parser), which gives every key's exact position, and checks
// them against the schema before the library decodes.
package tomlkeys

import (
	"fmt"
	"strings"
)

// Key is a key of a document with the tables it is in: ["network", "mode"]
// for mode under [network], or for network.mode = ... at the top.
type Key []string

// String returns the key as TOML writes it: parts joined by dots, a part
// that is not a bare key quoted.
func (k Key) String() string {
	var b strings.Builder
	for i, part := range k {
		if i > 0 {
			b.WriteByte('.')
		}
		if isBare(part) {
			b.WriteString(part)
			continue
		}
		b.WriteByte('"')
		for _, r := range part {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x20 || r == 0x7f:
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}

// isBare reports whether s can be written as a bare key.
func isBare(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// Pos is a position in a document: a 1-based line and a 1-based column,
// counted in bytes as the TOML library counts it. The zero Pos is no
// position.
type Pos struct {
	Line, Col int
}

// Error is a problem with a document, at a position when it has one.
type Error struct {
	File string
	Pos
	Err error
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// UnknownKey is the error for an entry the schema does not know
// (Doc.Unknown).
func UnknownKey(file string, e Entry) *Error {
	return &Error{File: file, Pos: e.Pos, Err: fmt.Errorf("unknown key %q", e.Key.String())}
}
