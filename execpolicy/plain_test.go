package execpolicy

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestPlainCommand(t *testing.T) {
	tests := []struct {
		script string
		want   []string // nil: not plain
	}{
		{"ls", []string{"ls"}},
		{"  git\tstatus  ", []string{"git", "status"}},
		{"/bin/true", []string{"/bin/true"}},
		{"./x.sh -v --out=a,b user@host:/p 50% +x", []string{"./x.sh", "-v", "--out=a,b", "user@host:/p", "50%", "+x"}},
		{"go test ./...", []string{"go", "test", "./..."}},
		{"", nil},
		{" \t ", nil},
		{"ls\n", nil},
		{"ls; rm x", nil},
		{"ls && rm x", nil},
		{"ls | wc", nil},
		{"ls &", nil},
		{"ls >out", nil},
		{"ls 2>&1", nil},
		{"ls $HOME", nil},
		{"ls `id`", nil},
		{"ls 'a b'", nil},
		{`ls "a"`, nil},
		{`ls a\ b`, nil},
		{"ls *.go", nil},
		{"ls ?", nil},
		{"ls [ab]", nil},
		{"ls {a,b}", nil},
		{"ls ~", nil},
		{"ls ~/x", nil},
		{"ls #x", nil},
		{"ls !x", nil},
		{"ls (x)", nil},
		{"ls é", nil},
		{"ls \x00", nil},
		{"FOO=1 ls", nil},
		{"a=b", nil},
		{"%1", nil},
		{"user@host", nil},
		{"a:b", nil},
		{"a,b", nil},
		// Builtins and reserved words, which bash does not execute.
		{"true", nil},
		{"echo hi", nil},
		{"cd /tmp", nil},
		{"exec ls", nil},
		{"command ls", nil},
		{"time ls", nil},
		{"kill 1", nil},
		{"test -f x", nil},
		{". x", nil},
		{"if", nil},
		{"printf x", nil},
		// Their paths are programs.
		{"/usr/bin/echo hi", []string{"/usr/bin/echo", "hi"}},
		{"./true", []string{"./true"}},
	}
	for _, tt := range tests {
		got, ok := PlainCommand(tt.script)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("PlainCommand(%q) = %q, %v; want %q", tt.script, got, ok, tt.want)
		}
	}
}

// TestPlainCommandMatchesBash is an oracle: bash itself splits each plain
// script of the corpus and the table above into words (printf prints
// them, the script's words being its arguments: nothing in a plain word
// expands), and says the first is neither a builtin nor a keyword (type
// says "file" for a path, nothing for a name PATH does not hold).
func TestPlainCommandMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash is not installed")
		}
		t.Skip("bash is not installed")
	}
	scripts := []string{"ls", "git status --short", "./x.sh -v --out=a,b user@host:/p 50% +x a=b -- -", "go test ./...",
		"/usr/bin/echo hi", "./true", "make -j4 CC=gcc", "rg -n foo src/a.go", "python3 -m pytest -q"}
	for _, row := range readCorpus(t) {
		scripts = append(scripts, row.command)
	}
	checked := 0
	for _, src := range scripts {
		argv, ok := PlainCommand(src)
		if !ok {
			continue
		}
		checked++
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", `printf '%s\0' `+src+`; echo; type -t -- "$0"; true`, argv[0])
		cmd.Env = []string{"LC_ALL=C", "PATH=/nonexistent"}
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("bash on %q: %v", src, err)
			continue
		}
		words, kind, _ := strings.Cut(string(out), "\n")
		got := strings.Split(strings.TrimSuffix(words, "\x00"), "\x00")
		if !slices.Equal(got, argv) {
			t.Errorf("%q: bash's words %q, PlainCommand's %q", src, got, argv)
		}
		if kind = strings.TrimSpace(kind); kind != "" && kind != "file" {
			t.Errorf("%q: bash calls %q a %s", src, argv[0], kind)
		}
	}
	if checked < 9 {
		t.Fatalf("only %d plain scripts checked", checked)
	}
}

// TestBashNamesAreBash checks bashNames against the host's bash: every
// builtin and keyword it knows is in the table.
func TestBashNamesAreBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash is not installed")
		}
		t.Skip("bash is not installed")
	}
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", "compgen -b; compgen -k").Output()
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(out))
	if len(names) < 60 {
		t.Fatalf("bash listed %d builtins and keywords: %q", len(names), names)
	}
	for _, n := range names {
		if _, ok := bashNames.lookup(n); !ok {
			t.Errorf("bash's %q is not in bashNames", n)
		}
	}
}

// FuzzPlainCommand checks that a script PlainCommand accepts is, to the
// bash parser the analysis uses, one simple command of literal words,
// those words, with no assignment or redirection.
func FuzzPlainCommand(f *testing.F) {
	for _, s := range []string{"ls -la", "git status", "a=b c", "x %1 y", "ls\t-l", "ls;x", "$x", "~a", "a\\ b"} {
		f.Add(s)
	}
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f.Fuzz(func(t *testing.T, src string) {
		argv, ok := PlainCommand(src)
		if !ok {
			return
		}
		file, err := parser.Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatalf("%q: plain, but does not parse: %v", src, err)
		}
		if len(file.Stmts) != 1 {
			t.Fatalf("%q: plain, but %d statements", src, len(file.Stmts))
		}
		st := file.Stmts[0]
		call, isCall := st.Cmd.(*syntax.CallExpr)
		if !isCall || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
			t.Fatalf("%q: plain, but not one simple command: %#v", src, st)
		}
		var words []string
		for _, w := range call.Args {
			lit := w.Lit()
			if lit == "" {
				t.Fatalf("%q: plain, but a word is not literal", src)
			}
			words = append(words, lit)
		}
		if !slices.Equal(words, argv) {
			t.Fatalf("%q: parser's words %q, PlainCommand's %q", src, words, argv)
		}
	})
}
