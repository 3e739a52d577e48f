package profiles

import "fmt"

// Error is a problem in a profile file, located by file, line and column.
// Line is 0 when the problem is the file as a whole (it cannot be read);
// Col is 0 when the problem is a line's, or a key's whose value is wrong
// for the profile rather than for the schema.
type Error struct {
	File      string
	Line, Col int
	Err       error
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

func errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}
