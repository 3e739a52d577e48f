package profiles

import "fmt"

// Error is a problem in a profile file, located by file and line. Line is
// 0 when the problem is the file as a whole (it cannot be read).
type Error struct {
	File string
	Line int
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}
