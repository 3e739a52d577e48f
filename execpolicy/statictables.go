package execpolicy

// The package's tables (programs, wrappers, runners, options) are laid out
// by the linker, not built at every start, only while no package-level
// initialiser calls a function or appends: after the first that does, the
// compiler copies every table value that names another variable at run
// time instead (cmd/compile's staticinit, "skipping static copy"), ~200
// copies into ~25 pages of the binary's data, each page copied on write,
// at every start of gatedexec, whatever the subcommand. What has to be
// computed is computed in an init function, which runs after them.
// TestTablesStatic keeps it so.

// sentinel is an error value made without a call (errors.New), for the
// package-level errors.
type sentinel struct{ msg string }

func (e *sentinel) Error() string { return e.msg }
