package tomlkeys

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// level decodes itself: an integer from 0 to 9, or "max".
type level int

func (l *level) UnmarshalTOML(raw []byte) error {
	v, err := Value(raw)
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case int64:
		if v < 0 || v > 9 {
			return fmt.Errorf("want 0 to 9, got %d", v)
		}
		*l = level(v)
	case string:
		if v != "max" {
			return fmt.Errorf("want \"max\", got %q", v)
		}
		*l = 9
	default:
		return fmt.Errorf("want a level, got %T", v)
	}
	return nil
}

type schema struct {
	Top    string `toml:"top"`
	Hidden string `toml:"-"`
	Plain  string
	Flag   *bool `toml:"flag"`
	Table  struct {
		Leaf  *[]string `toml:"leaf_key"`
		Level *level    `toml:"level"`
	} `toml:"table"`
	Items []struct {
		Name string `toml:"name"`
	} `toml:"items"`
	Env map[string]string `toml:"env"`
	Any any               `toml:"any"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, src string
		wantErr   string   // the whole error; "" for none
		unknown   []string // "key@line:col"
		check     func(*testing.T, *schema)
	}{
		{name: "exact", src: "top = \"a\"\nPlain = \"b\"\n[table]\nleaf_key = []\nlevel = 3\n[[items]]\nname = \"x\"\n[env]\nAnyCase = \"v\"\n",
			check: func(t *testing.T, s *schema) {
				if s.Top != "a" || s.Plain != "b" || s.Table.Leaf == nil || *s.Table.Level != 3 || len(s.Items) != 1 || s.Env["AnyCase"] != "v" {
					t.Errorf("decoded %+v", s)
				}
			}},
		{name: "inline and dotted", src: "table = {level = \"max\", leaf_key = ['a']}\nitems = [{name = \"x\"}, {name = \"y\"}]\n",
			check: func(t *testing.T, s *schema) {
				if *s.Table.Level != 9 || len(*s.Table.Leaf) != 1 || len(s.Items) != 2 {
					t.Errorf("decoded %+v", s)
				}
			}},
		// The library's case-insensitive fallback.
		{name: "top key", src: "\nTop = \"a\"\n", wantErr: `f.toml:2:1: key "Top" is not spelt "top"`},
		{name: "untagged field", src: "plain = \"a\"\n", wantErr: `f.toml:1:1: key "plain" is not spelt "Plain"`},
		{name: "table", src: "[table]\nleaf_key = []\n[Table]\nleaf_key = [\"x\"]\n", wantErr: `f.toml:3:2: key "Table" is not spelt "table"`},
		{name: "key in a table", src: "[table]\n  LEAF_KEY = []\n", wantErr: `f.toml:2:3: key "table.LEAF_KEY" is not spelt "leaf_key"`},
		{name: "dotted key part", src: "table.LEVEL = 1\n", wantErr: `f.toml:1:7: key "table.LEVEL" is not spelt "level"`},
		{name: "array of tables", src: "[[items]]\nNAME = \"x\"\n", wantErr: `f.toml:2:1: key "items.NAME" is not spelt "name"`},
		{name: "inline table key", src: "table = {Level = 1}\n", wantErr: `f.toml:1:10: key "table.Level" is not spelt "level"`},
		// Unknown keys are the caller's, each once, where written.
		{name: "skipped field", src: "hidden = \"x\"\nHidden = 'y'\n", unknown: []string{"hidden@1:1", "Hidden@2:1"}},
		{name: "unknown", src: "top = \"a\"\nother = 1\n[table]\nnope = 2\n[extra]\nx = 1\n[extra.y]\n",
			unknown: []string{"other@2:1", "table.nope@4:1", "extra@5:2"},
			check: func(t *testing.T, s *schema) {
				if s.Top != "a" {
					t.Errorf("known key lost beside unknown ones: %+v", s)
				}
			}},
		{name: "unknown quoted", src: "\"a.b\" = 1\n", unknown: []string{`"a.b"@1:1`}},
		// Types, named at the value.
		{name: "string for a list", src: "[table]\nleaf_key = \"x\"\n", wantErr: `f.toml:2:12: table.leaf_key: want an array of strings, got a string`},
		{name: "element type", src: "[table]\nleaf_key = [\n  \"a\",\n  2,\n]\n", wantErr: `f.toml:4:3: table.leaf_key: want a string in the array, got an integer`},
		{name: "bool", src: "flag = \"yes\"\n", wantErr: `f.toml:1:8: flag: want a boolean, got a string`},
		{name: "datetime for a string", src: "top = 1979-05-27T07:32:00Z\n", wantErr: `f.toml:1:7: top: want a string, got a datetime`},
		{name: "local date for a string", src: "top = 1979-05-27\n", wantErr: `f.toml:1:7: top: want a string, got a local date`},
		{name: "table for a string", src: "[top]\n", wantErr: `f.toml:1:2: top: want a string, got a table`},
		{name: "dotted key below a string", src: "top.x = 1\n", wantErr: `f.toml:1:1: top: want a string, got a table`},
		{name: "value for a table", src: "table = 1\n", wantErr: `f.toml:1:9: table: want a table, got an integer`},
		{name: "array of tables for a table", src: "[[table]]\n", wantErr: `f.toml:1:3: table: want a table, got an array of tables`},
		{name: "data below a map", src: "[env]\nk = 'v'\n'any key' = 'w'\n", check: func(t *testing.T, s *schema) {
			if len(s.Env) != 2 {
				t.Errorf("env = %v", s.Env)
			}
		}},
		{name: "table in a map of strings", src: "[env.x]\ny = 1\n", wantErr: `f.toml:1:2: env.x: want a string, got a table`},
		{name: "integer in a map of strings", src: "env = {k = 1}\n", wantErr: `f.toml:1:12: env.k: want a string, got an integer`},
		{name: "any value", src: "any = [1, 'a', {b = 2025-01-01}]\n"},
		// A type that decodes itself, named at its value.
		{name: "custom refuses", src: "[table]\nlevel = 12\n", wantErr: `f.toml:2:9: table.level: want 0 to 9, got 12`},
		{name: "custom refuses a type", src: "[table]\nlevel = 1.5\n", wantErr: `f.toml:2:9: table.level: want a level, got float64`},
		{name: "custom refuses a datetime", src: "[table]\nlevel = 07:32:00\n", wantErr: `f.toml:2:9: table.level: want a level, got toml.LocalTime`},
		{name: "custom refuses an array", src: "[table]\nlevel = [\n1]\n", wantErr: `f.toml:2:9: table.level: want a level, got []interface {}`},
		{name: "custom in an inline table", src: "table = { level = 'min' }\n", wantErr: `f.toml:1:19: table.level: want "max", got "min"`},
		{name: "key below a custom value", src: "[table]\nlevel.x = 1\n", wantErr: `f.toml:2:1: table.level: want a level, got map[string]interface {}`},
		{name: "custom opened as a table", src: "[table.level]\nx = 1\n", wantErr: `f.toml:1:2: table.level: want a level, got map[string]interface {}`},
		// The document's own structure.
		{name: "defined twice", src: "top = 'a'\ntop = 'b'\n", wantErr: `f.toml:2:1: key top is already defined`},
		{name: "syntax", src: "top = 'a'\n[table\n", wantErr: `f.toml:2:7: expected ']' to close table name`},
		{name: "syntax at the end", src: "top = ", wantErr: `f.toml:1:6: expected value, not end of input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s schema
			doc, err := Decode("f.toml", []byte(tt.src), &s)
			if tt.wantErr != "" {
				var te *Error
				if err == nil || err.Error() != tt.wantErr || !errors.As(err, &te) {
					t.Fatalf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var unknown []string
			for _, e := range doc.Unknown {
				unknown = append(unknown, fmt.Sprintf("%s@%d:%d", e.Key, e.Pos.Line, e.Pos.Col))
			}
			if !reflect.DeepEqual(unknown, tt.unknown) {
				t.Errorf("unknown = %q, want %q", unknown, tt.unknown)
			}
			if tt.check != nil {
				tt.check(t, &s)
			}
		})
	}
}

// A document's keys are bounded, and so is the library's time on it.
func TestDecodeBoundsKeys(t *testing.T) {
	var b strings.Builder
	for i := range maxKeyParts {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	if _, err := Decode("f.toml", []byte(b.String()), &schema{}); err != nil {
		t.Fatalf("%d keys: %v", maxKeyParts, err)
	}
	b.WriteString("top.x = 1\n")
	want := fmt.Sprintf("f.toml:%d:1: too many keys: more than %d key parts", maxKeyParts+1, maxKeyParts)
	if _, err := Decode("f.toml", []byte(b.String()), &schema{}); err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %s", err, want)
	}
}

func TestDecodeWantsAStruct(t *testing.T) {
	var m map[string]any
	if _, err := Decode("f.toml", []byte("a = 1\n"), &m); err == nil || !strings.HasPrefix(err.Error(), "f.toml: ") {
		t.Fatalf("Decode into a map: %v", err)
	}
}

func TestFind(t *testing.T) {
	src := []byte("approval_policy = \"x\"\n# profile = \"no\"\nprofile='p'\n[limits]\n  nofile=1\n[[x]]\ny = 2\nprocess . setsid = true\n" +
		"[network]\nhosts = [\n  \"a\", # one\n  'b',\n]\ninline = {k = {j = 1}}\ndotted.key = 1\n")
	doc, err := Scan("f.toml", src)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]Pos{"approval_policy": {1, 1}, "profile": {3, 1}, "limits": {4, 2}, "limits.nofile": {5, 3},
		"x": {6, 3}, "x.y": {7, 1}, "x.process.setsid": {8, 1}, "network.hosts": {10, 1}, "network.inline.k.j": {14, 16},
		"network.dotted": {15, 1}, "nope": {}} {
		got, ok := doc.Find(strings.Split(key, ".")...)
		if got != want || ok != (want != Pos{}) {
			t.Errorf("Find(%q) = %v, %v; want %v", key, got, ok, want)
		}
	}
	for value, want := range map[string]Pos{"a": {11, 3}, "b": {12, 3}, "c": {10, 1}} {
		if got, _ := doc.Elem(Key{"network", "hosts"}, value); got != want {
			t.Errorf("Elem(network.hosts, %q) = %v, want %v", value, got, want)
		}
	}
}

func TestScanSyntaxError(t *testing.T) {
	doc, err := Scan("f.toml", []byte("a = 1\nb = \"x\n"))
	var te *Error
	if !errors.As(err, &te) || te.Pos != (Pos{2, 7}) || te.File != "f.toml" {
		t.Fatalf("error = %#v", err)
	}
	if _, ok := doc.Find("a"); !ok {
		t.Error("the keys before a syntax error are lost")
	}
}

func TestKeyString(t *testing.T) {
	for _, tt := range []struct {
		key  Key
		want string
	}{
		{Key{"a", "b-c_1"}, "a.b-c_1"},
		{Key{"a.b", ""}, `"a.b".""`},
		{Key{`q"\`, "x y", "\x01"}, `"q\"\\"."x y"."\u0001"`},
	} {
		if got := tt.key.String(); got != tt.want {
			t.Errorf("%q.String() = %s, want %s", []string(tt.key), got, tt.want)
		}
	}
}
