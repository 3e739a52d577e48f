// Package lazyregexp compiles regular expressions on first use. Compiling
// them at package init would cost every gatedexec start, the sandboxed
// ones included, even when no error, denial or log line is ever matched.
package lazyregexp

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp ever after. expr must be valid; an
// invalid one panics at first use, like regexp.MustCompile.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
