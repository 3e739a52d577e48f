package profiles

import (
	"errors"
	"os"

	"github.com/gatedexec/gatedexec/internal/tomlkeys"
	"github.com/gatedexec/gatedexec/sandbox"
)

// Severity says whether a lint problem makes a profile unusable.
type Severity string

const (
	// SevError is a problem that makes Resolve fail.
	SevError Severity = "error"
	// SevWarning is worth knowing but the profile still resolves.
	SevWarning Severity = "warning"
)

// Problem is one finding of Lint.
type Problem struct {
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Col      int      `json:"col,omitempty"`
	Message  string   `json:"message"`
}

func (p Problem) String() string {
	e := &Error{File: p.File, Pos: tomlkeys.Pos{Line: p.Line, Col: p.Col}, Err: errors.New(p.Message)}
	return e.Error() + " (" + string(p.Severity) + ")"
}

// Unenforceable reports, for a resolved profile, the rules a backend cannot
// enforce on this host; the caller supplies it because profiles must not
// import the backends.
type Unenforceable func(p *sandbox.Profile) []string

// Lint checks the profile file at path: parse errors and unknown keys
// (every one, not just the first), errors resolving it (extends, path
// tokens, enum values), read and write paths set in this file that do not
// exist (warnings; protect and hide paths may rightly not exist), and what
// check says cannot be enforced here (warnings: the host lacks it, the
// file is not wrong).
func (l *Loader) Lint(path string, check Unenforceable) []Problem {
	src, err := l.files().ReadFile(path, MaxFileSize)
	if err != nil {
		return []Problem{{Severity: SevError, File: path, Message: err.Error()}}
	}
	f, err := ParseLax(path, src)
	if err != nil {
		return []Problem{problemOf(SevError, path, err)}
	}
	var out []Problem
	for _, e := range f.UnknownKeys() {
		out = append(out, problemOf(SevError, path, e))
	}
	p, err := l.resolveFile(path, f, where{layer: len(l.Dirs), path: path}, nil)
	if err != nil {
		return append(out, problemOf(SevError, path, err))
	}
	for _, k := range []struct {
		key   string
		set   bool
		paths []string
	}{{"filesystem.read", f.Filesystem.Read != nil, p.Read}, {"filesystem.write", f.Filesystem.Write != nil, p.Write}} {
		if !k.set {
			continue // an inherited list is its own file's business
		}
		for _, q := range k.paths {
			if _, err := os.Lstat(q); errors.Is(err, os.ErrNotExist) {
				out = append(out, Problem{Severity: SevWarning, File: path, Line: f.Line(k.key),
					Message: k.key + ": " + q + " does not exist on this host"})
			}
		}
	}
	if !p.Unrestricted && !p.NeedsNamespaces() {
		// Without any namespace only Landlock and seccomp confine it,
		// and they have no right for metadata, IPC or other processes.
		out = append(out, Problem{Severity: SevWarning, File: path, Message: "no namespaces (no protect or hide, private_tmp and pid_namespace off, network on): " +
			"other processes, the host's /tmp and its sockets, changes to file modes, owners, times and attributes outside filesystem.write, " +
			"and System V IPC with processes outside are not confined"})
	}
	if check != nil {
		for _, msg := range check(p) {
			out = append(out, Problem{Severity: SevWarning, File: path, Message: "cannot be enforced on this host: " + msg})
		}
	}
	return out
}

// problemOf converts an error, keeping its file, line and column when it
// has them.
func problemOf(sev Severity, file string, err error) Problem {
	var pe *Error
	if errors.As(err, &pe) {
		return Problem{Severity: sev, File: pe.File, Line: pe.Line, Col: pe.Col, Message: pe.Err.Error()}
	}
	return Problem{Severity: sev, File: file, Message: err.Error()}
}
