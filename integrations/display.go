package integrations

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Unshown returns what in script, a command an agent will show a person
// before it runs, would make it show otherwise than it runs, or "": a
// control character (ESC, CR, backspace: they move the cursor or redraw
// the line), an invalid byte, or one strconv.IsPrint refuses (bidi
// overrides, zero-width characters, spaces other than ASCII's). Newlines
// and tabs, which a multi-line script holds, are shown as they are.
func Unshown(script string) string {
	for i, r := range script {
		switch {
		case r == '\n' || r == '\t':
		case r == utf8.RuneError && !validAt(script, i):
			return fmt.Sprintf("an invalid byte 0x%02x at byte %d", script[i], i)
		case !strconv.IsPrint(r):
			return fmt.Sprintf("%U at byte %d", r, i)
		}
	}
	return ""
}

// validAt says whether the U+FFFD at s[i] is spelt out, not a bad byte.
func validAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return r == utf8.RuneError && n == 3
}
