package tomlkeys

import (
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// schemaField is the field of a struct that a key decodes into.
type schemaField struct {
	name string // the key its tag (or its own name) gives it
	typ  reflect.Type
}

// field finds the field of struct type t that key decodes into, as the
// TOML library finds it: the field named key (by its toml tag, else its
// Go name), else the first one whose name is key in another case (both
// lowercased are equal). Unexported fields and those tagged "-" are no
// keys. An embedded struct is a field like another here, where the
// library would take its fields for the outer struct's: a schema must not
// embed one, whose keys would be unknown.
func field(t reflect.Type, key string) (schemaField, bool) {
	var folded schemaField
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("toml"); ok {
			if tag == "-" {
				continue
			}
			if n, _, _ := strings.Cut(tag, ","); n != "" {
				name = n
			}
		}
		if name == key {
			return schemaField{name, f.Type}, true
		}
		if !found && strings.ToLower(name) == strings.ToLower(key) {
			folded, found = schemaField{name, f.Type}, true
		}
	}
	return folded, found
}

// indirect strips the pointers around t.
func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// elemOf strips the pointers, slices and arrays around t: what a table,
// or an array of tables, decodes into.
func elemOf(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			t = t.Elem()
		default:
			return t
		}
	}
}

// describe names the TOML values that decode into t, for errors.
func describe(t reflect.Type) string {
	t = indirect(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(t.Elem())
	case reflect.Struct, reflect.Map:
		return "a table"
	}
	switch n := plural(t); n {
	case "values":
		return "a value"
	case "integers":
		return "an integer"
	default:
		return "a " + strings.TrimSuffix(n, "s")
	}
}

// plural names the TOML values that decode into t, as the elements of an
// array.
func plural(t reflect.Type) string {
	t = indirect(t)
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Bool:
		return "booleans"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integers"
	case reflect.Float32, reflect.Float64:
		return "floats"
	case reflect.Slice, reflect.Array:
		return "arrays"
	case reflect.Struct, reflect.Map:
		return "tables"
	}
	return "values"
}

// kindName names a kind of TOML value, for errors.
func kindName(k unstable.Kind) string {
	switch k {
	case unstable.String:
		return "a string"
	case unstable.Bool:
		return "a boolean"
	case unstable.Integer:
		return "an integer"
	case unstable.Float:
		return "a float"
	case unstable.DateTime:
		return "a datetime"
	case unstable.LocalDateTime:
		return "a local datetime"
	case unstable.LocalDate:
		return "a local date"
	case unstable.LocalTime:
		return "a local time"
	case unstable.Array:
		return "an array"
	case unstable.InlineTable:
		return "a table"
	}
	return "a " + k.String()
}
