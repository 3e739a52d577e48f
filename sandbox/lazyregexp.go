package sandbox

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use. Compiling at package init would
// cost every gatedexec process (and the sandbox helper) start-up time even
// when no denial or session is ever looked at.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
