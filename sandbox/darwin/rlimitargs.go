package darwin

import (
	"strconv"

	"github.com/gatedexec/gatedexec/sandbox"
)

// rlimitArgs encodes limits as NAME=VALUE helper arguments.
func rlimitArgs(l sandbox.Limits) []string {
	var out []string
	for _, r := range l.Rlimits() {
		if r.Value > 0 {
			out = append(out, r.Name+"="+strconv.FormatUint(r.Value, 10))
		}
	}
	return out
}
