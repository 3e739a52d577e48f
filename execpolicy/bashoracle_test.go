package execpolicy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// oracleWords are words beside the corpus's whose quote removal is easy
// to get wrong: escapes in each kind of quoting, and ANSI-C strings.
var oracleWords = []string{
	`'a'"b"c`, `a\ b`, `"x\$y\\z\q"`, `"a\"b"`, `\#x`, `a\\`, `'\'`,
	`$'\x41\n\t\\'`, `$'\101\0102'`, `$'\u00e9\U0001F600'`, `$'\cA\e'`, `$'it\'s'`, `"a
b"`, `x=1`, `--opt=a\=b`, `'{a,b}'`, `\*`, `"*"`, `\~x`,
}

// TestWordValuesMatchBash is an oracle for quote removal: every word the
// analyser calls literal, in the corpus's scripts and in oracleWords, is
// printed by bash itself, and the two values must be the same bytes. A
// literal word has no expansion, so printing it runs nothing else.
func TestWordValuesMatchBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash is not installed")
		}
		t.Skip("bash is not installed")
	}
	scripts := []string{"printf x " + strings.Join(oracleWords, " ")}
	for _, row := range readCorpus(t) {
		scripts = append(scripts, row.command)
	}
	checked := 0
	for _, src := range scripts {
		words, values := literalWordsOf(src)
		if len(words) == 0 {
			continue
		}
		var script strings.Builder
		for _, w := range words {
			fmt.Fprintf(&script, "printf '%%s\\0' %s\n", w)
		}
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script.String())
		cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("bash on the words of %q: %v", src, err)
			continue
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if len(got) != len(values) {
			t.Errorf("%q: bash printed %d words, want %d: %q", src, len(got), len(values), out)
			continue
		}
		for i := range values {
			if got[i] != values[i] {
				t.Errorf("word %s of %q: analyser %q, bash %q", words[i], src, values[i], got[i])
			}
		}
		checked += len(values)
	}
	t.Logf("%d literal words checked against bash", checked)
	if checked < 100 {
		t.Errorf("only %d words checked", checked)
	}
}

// literalWordsOf returns the source and value of every argument word of
// every simple command in src that the analyser calls literal; none when
// src does not parse as bash or holds a NUL byte.
func literalWordsOf(src string) (words, values []string) {
	if strings.IndexByte(src, 0) >= 0 {
		return nil, nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, nil
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		for _, w := range call.Args {
			aw := analyseWord(w, src)
			text := sourceOf(w, src)
			// A word beginning "#" would start a comment after printf's
			// format; only a quoted or escaped one can be a word at all.
			if !aw.literal || text == "" || text[0] == '#' || bytes.ContainsAny([]byte(text), "\r") {
				continue
			}
			words, values = append(words, text), append(values, aw.value)
		}
		return true
	})
	return words, values
}
