// Package lazyregexp compiles regular expressions on first use. Compiling
// them at package init would cost every gatedexec start, the sandboxed
// ones included, even when no error, denial or log line is ever matched.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled the first time it is used.
// Declared as a package variable, &lazyregexp.Regexp{Expr: ...}, it costs
// a start nothing at all: the compiler lays it out in the binary, where a
// function made by sync.OnceValue is built by code run at init.
type Regexp struct {
	// Expr is the expression. It must be valid: an invalid one panics at
	// first use, like regexp.MustCompile.
	Expr string

	once sync.Once
	re   *regexp.Regexp
}

// Get returns the compiled expression, the same one on every call.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(r.compile)
	return r.re
}

func (r *Regexp) compile() { r.re = regexp.MustCompile(r.Expr) }
