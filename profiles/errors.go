package profiles

import (
	"fmt"

	"github.com/gatedexec/gatedexec/internal/tomlkeys"
)

// Error is a problem in a profile file, located by file, line and column.
// Line is 0 when the problem is the file as a whole (it cannot be read);
// Col is 0 when the problem is a line's, or its key could not be found.
type Error struct {
	File      string
	Line, Col int
	Err       error
}

// Error says file:line:col as tomlkeys.Error does, for one format of
// positions in every message about a TOML file.
func (e *Error) Error() string {
	return (&tomlkeys.Error{File: e.File, Pos: tomlkeys.Pos{Line: e.Line, Col: e.Col}, Err: e.Err}).Error()
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// errorAt is errorf at a key's or a value's position, column included.
func errorAt(file string, p tomlkeys.Pos, format string, args ...any) *Error {
	return &Error{File: file, Line: p.Line, Col: p.Col, Err: fmt.Errorf(format, args...)}
}
