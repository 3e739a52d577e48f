// Package tomlkeys holds TOML files to the exact key spellings of their
// schema.
//
// The TOML library falls back to a case-insensitive match when no struct
// field has a key's exact name, and keys are case-sensitive in TOML: so
// "[Filesystem] Write = [':all']" below "[filesystem] write = [...]" is
// two tables to a reader and one to the decoder, which takes whichever it
// meets last in a map's random order. A security file must mean one thing.
package tomlkeys

import (
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// Inexact returns the first of keys (toml.MetaData.Keys of a decode into
// v) that reached a field of v's type only by the library's
// case-insensitive fallback, with the field's spelling; nil when every key
// is spelt as its field. Keys that match no field at all are left to
// toml.MetaData.Undecoded.
func Inexact(v any, keys []toml.Key) (key toml.Key, want string) {
	root := reflect.TypeOf(v)
	for _, k := range keys {
		t := root
		for i, part := range k {
			t = elem(t)
			if t.Kind() != reflect.Struct {
				break // a map's keys are data, a leaf has none
			}
			f, name, ok := field(t, part)
			if !ok {
				break
			}
			if name != part {
				return k[:i+1], name
			}
			t = f.Type
		}
	}
	return nil, ""
}

// elem strips the pointers, slices and arrays around t: what a table, or
// an array of tables, decodes into.
func elem(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			t = t.Elem()
		default:
			return t
		}
	}
}

// field finds the field of struct type t that key decodes into, as the
// library does: the exact name first, else a case-insensitive one. It
// returns the field and its name.
func field(t reflect.Type, key string) (reflect.StructField, string, bool) {
	var folded reflect.StructField
	foldedName, found := "", false
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, _, _ := strings.Cut(f.Tag.Get("toml"), ","); tag == "-" {
			continue
		} else if tag != "" {
			name = tag
		}
		if name == key {
			return f, name, true
		}
		if !found && strings.EqualFold(name, key) {
			folded, foldedName, found = f, name, true
		}
	}
	return folded, foldedName, found
}
