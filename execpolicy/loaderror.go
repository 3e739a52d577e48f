package execpolicy

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// LoadError is an error in a rules file, positioned at the Starlark call or
// syntax element that caused it. Line and Col are 1-based; Col counts
// runes, as Starlark does.
type LoadError struct {
	File string
	Line int
	Col  int
	Msg  string
}

// Error formats e as "file:line:col: msg", the form editors and CI log
// scanners jump to.
func (e *LoadError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// newLoadError returns a LoadError at pos. A position Starlark could not
// determine (line 0) is reported at 1:1 so that the message keeps its
// file:line:col shape.
func newLoadError(file string, pos syntax.Position, msg string) *LoadError {
	line, col := int(pos.Line), int(pos.Col)
	if line <= 0 {
		line, col = 1, 1
	}
	if col <= 0 {
		col = 1
	}
	return &LoadError{File: file, Line: line, Col: col, Msg: msg}
}

// asLoadError converts an error from parsing, resolving or executing file
// into a LoadError. callStarts maps the position of a call's opening
// parenthesis, which is where Starlark records a call, to the start of the
// call expression, which is where a reader looks for it.
func asLoadError(file string, err error, callStarts callStartMap) *LoadError {
	var le *LoadError
	if errors.As(err, &le) {
		return le
	}
	var se syntax.Error
	if errors.As(err, &se) {
		return newLoadError(file, se.Pos, se.Msg)
	}
	var rl resolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		return newLoadError(file, rl[0].Pos, rl[0].Msg)
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return newLoadError(file, innermostFilePos(ee.CallStack, callStarts), evalMessage(ee))
	}
	return newLoadError(file, syntax.Position{}, err.Error())
}

// innermostFilePos returns the position of the innermost frame that is in
// the rules file rather than in a built-in: for an error raised by
// prefix_rule that is the prefix_rule(...) call itself.
func innermostFilePos(stack starlark.CallStack, callStarts callStartMap) syntax.Position {
	for i := len(stack) - 1; i >= 0; i-- {
		pos := stack[i].Pos
		if pos.Filename() == "<builtin>" {
			continue
		}
		return callStarts.start(pos)
	}
	return syntax.Position{}
}

// callStartMap maps the opening parenthesis of every call in a file, by
// line and column, to the start of the call expression. Keying by line
// and column alone leaves out the *string identity Starlark uses for file
// names, and an integer key hashes faster than a Position: it is looked
// up once per rule.
type callStartMap map[uint64]syntax.Position

func lineCol(pos syntax.Position) uint64 {
	return uint64(uint32(pos.Line))<<32 | uint64(uint32(pos.Col))
}

// start returns the start of the call whose parenthesis is at pos, or pos
// itself when no call has its parenthesis there.
func (m callStartMap) start(pos syntax.Position) syntax.Position {
	if start, ok := m[lineCol(pos)]; ok {
		return start
	}
	return pos
}

// evalMessage returns the message of an evaluation error without the
// "Starlark computation cancelled:" wording for the step limit, which is
// the one cancellation a rules file can cause.
func evalMessage(ee *starlark.EvalError) string {
	msg := ee.Msg
	if strings.Contains(msg, "too many steps") {
		return "rules file exceeds the execution step limit (too many steps)"
	}
	return msg
}
