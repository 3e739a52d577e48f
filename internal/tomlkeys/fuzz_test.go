package tomlkeys

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// FuzzDecode checks that no document makes Decode panic, that every error
// is an *Error of the file, that every position it gives, of an error or
// of a key, is in the document, and that a document it finds no unknown
// key in is one the library's strict mode finds none in either: Decode's
// walk of the schema finds every key the decoder would leave out.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		"top = \"a\"\nPlain = \"b\"\n[table]\nleaf_key = []\nlevel = 3\n[[items]]\nname = \"x\"\n[env]\nAnyCase = \"v\"\n",
		"table = {level = \"max\", leaf_key = ['a']}\nitems = [{name = \"x\"}, {name = \"y\"}]\n",
		"[table]\nlevel.x = 1\n[table.level]\n",
		"top = 1979-05-27T07:32:00Z\nany = [1, 'a', {b = 2025-01-01}]\n",
		"\"a.b\" = 1\ntop = '''\nx'''\n[Table]\n",
		"[table]\nleaf_key = [\n  \"a\", # c\n  2,\n]\n",
		"top = ",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		inFile := func(p Pos) bool {
			return p.Line >= 1 && p.Line <= bytes.Count(src, []byte("\n"))+1 && p.Col >= 1
		}
		var s schema
		doc, err := Decode("f.toml", src, &s)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) || te.File != "f.toml" || te.Line != 0 && !inFile(te.Pos) {
				t.Fatalf("error %#v: not an *Error of f.toml at a place in it", err)
			}
			return
		}
		for _, e := range append(doc.Keys, doc.Unknown...) {
			if len(e.Key) == 0 || !inFile(e.Pos) {
				t.Fatalf("key %q at %v", e.Key, e.Pos)
			}
		}
		if len(doc.Unknown) == 0 {
			var strict schema
			err := toml.NewDecoder(bytes.NewReader(src)).EnableUnmarshalerInterface().DisallowUnknownFields().Decode(&strict)
			var missing *toml.StrictMissingError
			if errors.As(err, &missing) {
				t.Fatalf("no unknown key found, the library's strict mode finds:\n%s", missing.String())
			}
		}
	})
}
