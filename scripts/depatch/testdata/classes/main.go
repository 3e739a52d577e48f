// Command classes prints what regexp/syntax makes of every character
// class a pattern can name, for TestStdLookups: each Unicode category,
// script and category alias, as \p{name} and \P{name}, with and without
// case folding, and each Perl and POSIX class, one per line.
package main

import (
	"fmt"
	"os"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

func main() {
	var names []string
	for _, m := range []map[string]*unicode.RangeTable{unicode.Categories, unicode.Scripts, unicode.Properties} {
		for name := range m {
			names = append(names, name)
		}
	}
	for name := range unicode.CategoryAliases {
		names = append(names, name)
	}
	slices.Sort(names)
	var patterns []string
	for _, name := range append(names, "Any", "Assigned", "ASCII", "LC", "Lc", "cased letter", "No_Such_Class") {
		patterns = append(patterns, `\p{`+name+`}`, `\P{`+name+`}`, `(?i)\p{`+name+`}`)
	}
	for _, class := range []string{"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit", "nosuch"} {
		patterns = append(patterns, `[[:`+class+`:]]`, `[[:^`+class+`:]]`, `(?i)[[:`+class+`:]]`)
	}
	patterns = append(patterns, `\d`, `\D`, `\s`, `\S`, `\w`, `\W`, `[\d\s]`, `(?i)\w`, `\pL`, `\PN`, `\pZ`)
	var b strings.Builder
	for _, p := range patterns {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			fmt.Fprintf(&b, "%s error %v\n", p, err)
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", p, re)
	}
	os.Stdout.WriteString(b.String())
}
