package main

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// stringsValue is a repeatable string flag, as pflag's StringArray: each
// use appends its value whole, commas included. pflag's own builds a CSV
// writer to print even an empty default, on every start of every command
// that has one; this one prints without it.
type stringsValue struct{ list *[]string }

// stringsVarP defines a repeatable string flag on fs that appends to *p.
func stringsVarP(fs *pflag.FlagSet, p *[]string, name, shorthand, usage string) {
	fs.VarP(stringsValue{p}, name, shorthand, usage)
}

func (v stringsValue) Set(s string) error {
	*v.list = append(*v.list, s)
	return nil
}

// Type is pflag's name for the kind, so that help reads as it did.
func (v stringsValue) Type() string { return "stringArray" }

// String is "" for no values, which help takes for a default not worth
// printing, as it does pflag's "[]".
func (v stringsValue) String() string {
	if len(*v.list) == 0 {
		return ""
	}
	q := make([]string, len(*v.list))
	for i, s := range *v.list {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}
