package main

import (
	"strings"
	"testing"
)

// TestLookupFile: the functions made from a map answer what the map
// holds, with a composite value's elided type written out; a variable
// that is not a map[string]V literal keyed by string literals is an
// error naming it.
func TestLookupFile(t *testing.T) {
	maps := []mapFunc{{"m", "lookupM", "eachM"}}
	for _, tc := range []struct {
		name, src string
		want      []string // in the output, in order
		err       string
	}{
		{"values", "package p\n\ntype g struct{ a int; b []rune }\n\nvar m = map[string]g{\n\t`\\d`: {+1, code1},\n\t\"x\": {-1, nil},\n}\n",
			[]string{"package p", "func lookupM(key string) g {", "case `\\d`:\n\t\treturn g{+1, code1}", "case \"x\":\n\t\treturn g{-1, nil}",
				"var zero g\n\treturn zero", "func eachM(yield func(string, g) bool) {", "if !yield(`\\d`, g{+1, code1}) {"}, ""},
		{"grouped", "package p\n\nvar (\n\tn    = 1\n\tm, o = map[string]*int{\"a\": nil}, 2\n)\n", []string{"case \"a\":\n\t\treturn nil"}, ""},
		{"missing", "package p\n\nvar n = map[string]int{}\n", nil, "no var m"},
		{"not a literal", "package p\n\nvar m = make(map[string]int)\n", nil, "var m is not a composite literal"},
		{"not a map", "package p\n\nvar m = []string{\"a\"}\n", nil, "var m is not a map[string]V literal"},
		{"int keys", "package p\n\nvar m = map[int]int{1: 2}\n", nil, "var m is not a map[string]V literal"},
		{"named key", "package p\n\nconst k = \"a\"\n\nvar m = map[string]int{k: 2}\n", nil, "m's key is not a string literal"},
		{"no value", "package p\n\nvar m map[string]int\n", nil, "var m has no value of its own"},
		{"syntax", "package p\n\nvar m = map[string]int{\n", nil, "expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := lookupFile("f.go", []byte(tc.src), stdFile{from: "p/f.go", maps: maps})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "f.go") {
					t.Fatalf("err %v, want one naming f.go and saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rest := string(out)
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("no %q (in order) in\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
