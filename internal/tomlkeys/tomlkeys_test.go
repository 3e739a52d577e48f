package tomlkeys

import (
	"slices"
	"testing"

	"github.com/BurntSushi/toml"
)

type schema struct {
	Top    string `toml:"top"`
	Hidden string `toml:"-"`
	Plain  string
	Table  struct {
		Leaf *[]string `toml:"leaf_key"`
	} `toml:"table"`
	Items []struct {
		Name string `toml:"name"`
	} `toml:"items"`
	Env map[string]string `toml:"env"`
}

func TestInexact(t *testing.T) {
	tests := []struct {
		name, src string
		bad       toml.Key
		want      string
	}{
		{name: "exact", src: "top = \"a\"\nPlain = \"b\"\n[table]\nleaf_key = []\n[[items]]\nname = \"x\"\n[env]\nAnyCase = \"v\"\n"},
		{name: "top key", src: "Top = \"a\"\n", bad: toml.Key{"Top"}, want: "top"},
		{name: "untagged field", src: "plain = \"a\"\n", bad: toml.Key{"plain"}, want: "Plain"},
		{name: "table", src: "[table]\nleaf_key = []\n[Table]\nleaf_key = [\"x\"]\n", bad: toml.Key{"Table"}, want: "table"},
		{name: "key in a table", src: "[table]\nLEAF_KEY = []\n", bad: toml.Key{"table", "LEAF_KEY"}, want: "leaf_key"},
		{name: "array of tables", src: "[[items]]\nNAME = \"x\"\n", bad: toml.Key{"items", "NAME"}, want: "name"},
		{name: "skipped field", src: "hidden = \"x\"\n"},
		{name: "unknown", src: "other = 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v schema
			md, err := toml.Decode(tt.src, &v)
			if err != nil {
				t.Fatal(err)
			}
			bad, want := Inexact(&v, md.Keys())
			if !slices.Equal(bad, tt.bad) || want != tt.want {
				t.Errorf("Inexact = %q, %q; want %q, %q", bad, want, tt.bad, tt.want)
			}
		})
	}
}
