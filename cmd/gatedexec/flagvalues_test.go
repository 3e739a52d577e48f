package main

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestStringsValue: each use of the flag adds its value whole, commas and
// all, as pflag's StringArray does; help shows no default for none.
func TestStringsValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		str  string
	}{
		{nil, nil, ""},
		{[]string{"-r", "a"}, []string{"a"}, `["a"]`},
		{[]string{"-r", "a,b", "--rules=c d", "-r", ""}, []string{"a,b", "c d", ""}, `["a,b","c d",""]`},
	} {
		var got []string
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		stringsVarP(fs, &got, "rules", "r", "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		f := fs.Lookup("rules")
		if !slices.Equal(got, c.want) || f.Value.String() != c.str {
			t.Errorf("%q: %q (String %q), want %q (%q)", c.args, got, f.Value.String(), c.want, c.str)
		}
		if f.DefValue != "" || f.Value.Type() != "stringArray" {
			t.Errorf("default %q, type %q", f.DefValue, f.Value.Type())
		}
	}
}
