package darwin

import (
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

func TestRlimitArgs(t *testing.T) {
	got := rlimitArgs(sandbox.Limits{NoFile: 256, CPU: 60, Timeout: 5})
	if want := []string{"nofile=256", "cpu=60"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := rlimitArgs(sandbox.Limits{}); len(got) != 0 {
		t.Errorf("no limits: got %q", got)
	}
}
