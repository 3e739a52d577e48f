package profiles

import (
	"fmt"

	"github.com/gatedexec/gatedexec/internal/tomlkeys"
)

// Error is a problem in a profile file, located by file, line and column,
// the error of every TOML file of gatedexec's. Line is 0 when the problem
// is the file as a whole (it cannot be read); Col is 0 when the problem
// is a line's, or its key could not be found.
type Error = tomlkeys.Error

func errorf(file string, line int, format string, args ...any) *Error {
	return errorAt(file, tomlkeys.Pos{Line: line}, format, args...)
}

// errorAt is errorf at a key's or a value's position, column included.
func errorAt(file string, p tomlkeys.Pos, format string, args ...any) *Error {
	return &Error{File: file, Pos: p, Err: fmt.Errorf(format, args...)}
}
