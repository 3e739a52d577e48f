package main

import (
	"errors"
	"fmt"

	"github.com/gatedexec/gatedexec/gate"
)

// Exit statuses of DESIGN §2.
const (
	exitOK         = 0
	exitUsage      = 64
	exitDeferred   = 75
	exitTimedOut   = 124 // as timeout(1): --timeout or the profile's timeout killed the command
	exitDenied     = 77
	exitConfig     = 78
	exitInternal   = 125
	exitCannotExec = 126
	exitNotFound   = 127
)

// exitError carries the exit status a command wants alongside its message.
// A nil err with a code means "exit with code, print nothing".
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so that main exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return &exitError{code: code}
	}
	return &exitError{code: code, err: err}
}

// exitCodeOf returns the status main should exit with for err and whether a
// message should be printed.
func exitCodeOf(err error) (int, bool) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.err != nil
	}
	return exitInternal, true
}

// engineExit gives an error of the engine its exit status: 64 the
// caller's value, 77 refused by the managed layer, 78 bad configuration, 127 not found, 126 cannot
// execute, 125 anything else (a layer that could not be applied
// included). nil stays nil; an error that has its status keeps it.
func engineExit(err error) error {
	var ee *exitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return err
	case errors.Is(err, gate.ErrManaged):
		return withCode(exitDenied, err)
	case errors.Is(err, gate.ErrConfig):
		return withCode(exitConfig, err)
	case errors.Is(err, gate.ErrUsage):
		return withCode(exitUsage, err)
	case errors.Is(err, gate.ErrNotFound):
		return withCode(exitNotFound, err)
	case errors.Is(err, gate.ErrCannotExec):
		return withCode(exitCannotExec, err)
	}
	return withCode(exitInternal, err)
}
