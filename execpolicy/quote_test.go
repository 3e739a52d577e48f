package execpolicy

import (
	"os/exec"
	"strings"
	"testing"
)

func TestQuoteWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"touch", "touch"},
		{"/usr/bin/a-b_c.d", "/usr/bin/a-b_c.d"},
		{"", "''"},
		{"$(id)", "'$(id)'"},
		{"semi;colon", "'semi;colon'"},
		{"$HOME", "'$HOME'"},
		{"it's", `'it'\''s'`},
		{"a b", "'a b'"},
		{"~", "'~'"},
		{"h\xff", `$'h\xff'`},
		{"esc\x1b[2J", `$'esc\x1b[2J'`},
		{"g\u0456t", `$'g\xd1\x96t'`},
		{"l1\nl2's\\", `$'l1\nl2\'s\\'`},
	} {
		if got := QuoteWord(tc.in); got != tc.want {
			t.Errorf("QuoteWord(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestQuoteArgvBash: bash reads the quoted words back as the argv.
func TestQuoteArgvBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	argv := []string{"touch", "$(id)", "semi;colon", "$HOME", "it's", "", "a b", "h\xff", "esc\x1b[2J", "g\u0456t", "x\ny", "*", "!x", "#c"}
	out, err := exec.Command(bash, "-c", `for a in `+QuoteArgv(argv)+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "\x00") != strings.Join(argv, "\x00") {
		t.Errorf("bash read %q back as %q", QuoteArgv(argv), got)
	}
}
