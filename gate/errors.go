package gate

import "errors"

// ErrConfig is wrapped by errors in the rules, profile or configuration
// (the CLI exits 78).
var ErrConfig = errors.New("bad configuration")

// ErrUsage is wrapped by errors in a value the caller gave (a flag, a
// request field): the CLI exits 64.
var ErrUsage = errors.New("bad usage")

// ErrAudit is wrapped when the audit log cannot be written (exit 125).
var ErrAudit = errors.New("audit log")

// kindError gives err a kind (ErrUsage, ErrConfig) for errors.Is without
// changing its message: the messages name the file, flag or variable at
// fault and are what users and tests read.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// withKind returns err marked as kind; a nil kind (gatedexec's own
// failure) leaves err as it is.
func withKind(kind, err error) error {
	if kind == nil || err == nil {
		return err
	}
	return &kindError{kind: kind, err: err}
}

// usageErr and configErr mark err as the caller's or the configuration's.
func usageErr(err error) error  { return withKind(ErrUsage, err) }
func configErr(err error) error { return withKind(ErrConfig, err) }
