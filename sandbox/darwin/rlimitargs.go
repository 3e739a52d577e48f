package darwin

import (
	"strconv"

	"github.com/gatedexec/gatedexec/sandbox"
)

// rlimitArgs encodes limits as NAME=VALUE helper arguments.
func rlimitArgs(l sandbox.Limits) []string {
	var out []string
	for _, r := range []struct {
		name string
		v    uint64
	}{{"nofile", l.NoFile}, {"nproc", l.NProc}, {"fsize", l.FSize}, {"cpu", l.CPU}, {"as", l.AS}} {
		if r.v > 0 {
			out = append(out, r.name+"="+strconv.FormatUint(r.v, 10))
		}
	}
	return out
}
