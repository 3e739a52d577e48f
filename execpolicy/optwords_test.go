package execpolicy

import (
	"strings"
	"testing"
)

// TestGetoptOptions reads argument lists with getopt specs as the option
// readers use them: values attached, in the next word or after "=", only
// attached, a letter taken with its option, names by prefix, in any case
// or only in full, operands, dynamic words, and the end at "--". Each
// option is shown as name=value, "name" alone when it has none, and an
// operand as its value.
func TestGetoptOptions(t *testing.T) {
	spec := getopt{valued: "oe", attached: "H", letter: "n", long: []string{"--output"}, longAttached: []string{"--html"}}
	for _, tt := range []struct {
		g    getopt
		args string // words split at spaces; $X is a dynamic word
		want string // what options yields, joined by spaces
	}{
		{spec, "-o f -ofile -xo f2 -vx", "-o=f -o=file -o=f2"},
		{spec, "-o", "-o"},
		{spec, "-H -Hbrowser -xHb", "-H -H=browser -H=b"},
		{spec, "-ne x -nve x", "x -e=x"},
		{spec, "--output=f --out f --o g --outputs h --other x", "--output=f --output=f --output=g h x"},
		{spec, "--html --htm=b --html b", "--html --html=b --html b"},
		{spec, "op - -o $X $X -o x", "op - -o=$X -o=x"},
		{spec, "-o f -- -o g", "-o=f"},
		{spec, "-o -- -e x", "-o=-- -e=x"},
		{getopt{long: []string{"--pattern"}, fold: true}, "--PAT=x --Pattern y", "--pattern=x --pattern=y"},
		{getopt{long: []string{"--option"}, fold: true, exact: true}, "--OPTION=x --opt=y --Option z", "--option=x --option=z"},
	} {
		var ws []word
		for _, f := range strings.Fields(tt.args) {
			ws = append(ws, word{value: f, src: f, static: !strings.HasPrefix(f, "$")})
		}
		ws = append([]word{{value: "prog", src: "prog", static: true}}, ws...)
		var got []string
		for opt, v := range tt.g.options(ws) {
			switch {
			case opt == "":
				got = append(got, v.src)
			case v == nil:
				got = append(got, opt)
			default:
				got = append(got, opt+"="+v.src)
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%q: got %q, want %q", tt.args, g, tt.want)
		}
	}
}
