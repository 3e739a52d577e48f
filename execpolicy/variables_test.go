package execpolicy

import (
	"slices"
	"strings"
	"testing"
)

// Evaluation.Variables names what a script sets, exports or unsets as
// bash decodes the names, however they are quoted, and nothing else.
func TestEvaluateVariables(t *testing.T) {
	p := corpusPolicy()
	tests := []struct {
		script string
		want   string // the names, space-separated, in the order found
	}{
		{"ls -la", ""},
		{"A=1 B+=2 make", "A B"},
		{"A=1 C[0]=3", "A C"},
		{"A=1", "A"},
		{"env -i A=1 B=2 make", "A B"},
		{"env A''B=1 make", "AB"},
		{`env $'\x41B=1' make`, "AB"},
		{"sudo A=1 make", "A"},
		{"env = make", ""},
		{"export A=1 B; make", "A B"},
		{`export $'\x41B=1'`, "AB"},
		{`declare -x A""B=1`, "AB"},
		{"typeset -x 'A'=1", "A"},
		{"readonly A=$(date)", "A"},
		{"f() { local -x A=1; }", "A"},
		{`export "$NAME=1"`, ""},
		{"declare -n r=A''B; r=1", "r AB r"},
		{"printf -v A''B x; read -r C D; unset E", "AB C D E"},
		{"eval \"export A''B=1\"", "AB"},
		{"bash -c 'export A=1'", "A"},
		{"x=1 <<EOF\nA=1\nEOF", "x"},
	}
	for _, tt := range tests {
		ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
		if got := strings.Join(ev.Variables, " "); got != tt.want {
			t.Errorf("Evaluate(%q).Variables = %q, want %q", tt.script, got, tt.want)
		}
	}
	if ev := p.Evaluate([]string{"env", "A=1", "make"}, EvalOptions{}); !slices.Equal(ev.Variables, []string{"A"}) {
		t.Errorf("argv env A=1 make: Variables %q", ev.Variables)
	}
}
