package tomlkeys

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	src := []byte("approval_policy = \"x\"\n# profile = \"no\"\nprofile='p'\n[limits]\nnofile=1\n[[x]]\ny = 2\n")
	for key, want := range map[string]int{"approval_policy": 1, "profile": 3, "limits": 4, "limits.nofile": 5, "x.y": 7, "nope": 1, "": 1} {
		var k []string
		if key != "" {
			k = strings.Split(key, ".")
		}
		if got := Line(src, k); got != want {
			t.Errorf("Line(%q) = %d, want %d", key, got, want)
		}
	}
}
