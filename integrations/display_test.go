package integrations

import "testing"

func TestUnshown(t *testing.T) {
	for _, c := range []struct {
		script, want string
	}{
		{"git push", ""},
		{"for f in *; do\n\techo \"$f\"\ndone", ""},
		{"echo héllo ✓ \uFFFD", ""},
		{"rm -rf x\r# ls", "U+000D at byte 8"},
		{"ls \x1b[2K\x1b[1Arm -rf x", "U+001B at byte 3"},
		{"ls \u202erm", "U+202E at byte 3"},
		{"ls\u200brm", "U+200B at byte 2"},
		{"ls\u00a0x", "U+00A0 at byte 2"},
		{"ls \xff", "an invalid byte 0xff at byte 3"},
	} {
		if got := Unshown(c.script); got != c.want {
			t.Errorf("Unshown(%q) = %q, want %q", c.script, got, c.want)
		}
	}
}
