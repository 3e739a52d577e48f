package execpolicy

import (
	"slices"
	"testing"
)

func TestProposedPrefix(t *testing.T) {
	p := corpusPolicy()
	tests := []struct {
		argv []string
		want []string // nil: no proposal
	}{
		{[]string{"git", "status", "-s"}, []string{"git", "status"}},
		{[]string{"git", "commit", "-m", "x"}, []string{"git", "commit"}},
		{[]string{"npm", "run", "test", "--", "-w"}, []string{"npm", "run", "test"}},
		{[]string{"npm", "test"}, []string{"npm", "test"}},
		{[]string{"cargo", "build", "--release"}, []string{"cargo", "build"}},
		{[]string{"ls", "-la", "src"}, []string{"ls"}},
		{[]string{"make"}, []string{"make"}},
		{[]string{"make", "test"}, []string{"make", "test"}},
		{[]string{"bash", "-lc", "go test ./..."}, []string{"go", "test"}},
		{[]string{"git"}, nil},
		{[]string{"git", "-c", "core.pager=x", "log"}, nil},
		{[]string{"npm", "exec", "x"}, nil},
		{[]string{"uv", "run", "rm"}, nil},
		{[]string{"git", "submodule", "foreach", "rm"}, nil},
		{[]string{"bash", "script.sh"}, nil},
		{[]string{"sh"}, nil},
		{[]string{"yash", "script.sh"}, nil},
		{[]string{"posh"}, nil},
		{[]string{"su", "-c", "ls"}, nil},
		{[]string{"python3", "x.py"}, nil},
		{[]string{"python3.12", "x.py"}, nil},
		{[]string{"node", "x.js"}, nil},
		{[]string{"env", "FOO=1", "ls"}, nil},
		{[]string{"sudo", "ls"}, nil},
		{[]string{"xargs", "ls"}, nil},
		{[]string{"timeout", "5", "ls"}, nil},
		{[]string{"nice", "make"}, nil},
		{[]string{"bash", "-c", "ls; pwd"}, nil},
		{[]string{"bash", "-c", "ls $HOME"}, nil},
		{[]string{"bash", "-c", "$X"}, nil},
		{[]string{"rm", "x"}, nil},           // forbidden
		{[]string{"git", "push", "-f"}, nil}, // dangerous
	}
	for _, tt := range tests {
		got, ok := ProposedPrefix(p.Evaluate(tt.argv, EvalOptions{}))
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("ProposedPrefix(%q) = %q, %v; want %q", tt.argv, got, ok, tt.want)
		}
	}
}
