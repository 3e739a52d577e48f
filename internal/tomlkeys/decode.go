package tomlkeys

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Decode decodes src into v, a pointer to a struct whose toml tags are the
// schema, and returns the document's keys; name is used in errors. Every
// error is an *Error, at the position of what is wrong: a syntax error, a
// key spelt in another case than its field, a value of the wrong type, a
// value a type that decodes itself refuses. A key the schema does not know
// is not an error here: it is in the Doc's Unknown, for the caller to
// refuse or report, and the library leaves it out of v.
//
// A type that decodes itself implements unstable.Unmarshaler: the library
// hands it the source of its value, which Value reads. Decode first hands
// each such value to a fresh one at the place it is written, so that what
// it refuses is an error at that place (the library would report it with
// none) and the library then meets only values it accepts. A key below
// such a value makes it a table, handed over as "{}": the type refuses it,
// where the library would give the value below to it.
func Decode(name string, src []byte, v any) (*Doc, error) {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, &Error{File: name, Err: fmt.Errorf("cannot decode into %T: want a pointer to a struct", v)}
	}
	s := newScanner(src)
	c := &checker{s: s, root: t.Elem(), seen: map[string]bool{}}
	if err := s.walk(c.check); err != nil {
		return nil, fileError(name, err)
	}
	s.doc.Unknown = c.unknown
	if err := toml.NewDecoder(bytes.NewReader(src)).EnableUnmarshalerInterface().Decode(v); err != nil {
		return nil, libraryError(name, err)
	}
	return &s.doc, nil
}

// libraryError converts an error of the TOML library's decoder. Those
// left after the checks are about the document's structure (a key or
// table defined twice), and carry their position.
func libraryError(name string, err error) *Error {
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return &Error{File: name, Err: err}
	}
	line, col := de.Position()
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	if k := Key(de.Key()); len(k) > 0 && !strings.Contains(msg, k.String()) {
		msg = k.String() + ": " + msg
	}
	return &Error{File: name, Pos: Pos{Line: line, Col: col}, Err: errors.New(msg)}
}

// checker holds each entry of a document to the schema whose root is a
// struct type.
type checker struct {
	s    *scanner
	root reflect.Type
	// unknown lists the unknown keys found, seen holds their strings.
	unknown []Entry
	seen    map[string]bool
}

// decodesItself reports whether t (not a pointer) decodes its own values.
func decodesItself(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(reflect.TypeFor[unstable.Unmarshaler]())
}

// check follows the key of e through the schema and checks what e sets
// there.
func (c *checker) check(e *entry) error {
	t := c.root
	for i, part := range e.key {
		t = indirect(t)
		if decodesItself(t) {
			return c.custom(t, []byte("{}"), e.key[:i], c.s.partPos(e, i-1))
		}
		table := elemOf(t)
		switch table.Kind() {
		case reflect.Struct:
		case reflect.Map:
			t = table.Elem() // part is data, what it holds is not
			continue
		case reflect.Interface:
			return nil // data all the way down
		default:
			return &posError{c.s.partPos(e, i-1), fmt.Errorf("%s: want %s, got a table", e.key[:i], describe(t))}
		}
		f, ok := field(table, part)
		if !ok {
			c.addUnknown(e, i)
			return nil
		}
		if f.name != part {
			return &posError{c.s.partPos(e, i), fmt.Errorf("key %q is not spelt %q", e.key[:i+1].String(), f.name)}
		}
		t = f.typ
	}
	if e.kind == unstable.KeyValue {
		t = indirect(t)
		if decodesItself(t) {
			return c.custom(t, c.s.rawValue(e.kv), e.key, c.s.valuePos(e))
		}
		return c.value(e.key, e.value, t, c.s.valuePos(e), "")
	}
	return c.table(e, t)
}

// addUnknown records part i of e's key as unknown, unless that key is.
func (c *checker) addUnknown(e *entry, i int) {
	k := e.key[:i+1]
	if s := k.String(); !c.seen[s] {
		c.seen[s] = true
		c.unknown = append(c.unknown, Entry{Key: slices.Clone(k), Pos: c.s.partPos(e, i)})
	}
}

// table checks that the header e may open a table of type t.
func (c *checker) table(e *entry, t reflect.Type) error {
	pos, got := c.s.partPos(e, 0), "a table"
	t = indirect(t)
	if e.kind == unstable.ArrayTable {
		got = "an array of tables"
		switch t.Kind() {
		case reflect.Interface:
			return nil
		case reflect.Slice, reflect.Array:
			t = indirect(t.Elem())
		default:
			return &posError{pos, fmt.Errorf("%s: want %s, got %s", e.key, describe(t), got)}
		}
	}
	if decodesItself(t) {
		return c.custom(t, []byte("{}"), e.key, pos)
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Interface:
		return nil
	}
	return &posError{pos, fmt.Errorf("%s: want %s, got %s", e.key, describe(t), got)}
}

// value checks that the value n, at pos, of key can decode into t. in
// says where n is, for an array's elements.
func (c *checker) value(key Key, n *unstable.Node, t reflect.Type, pos Pos, in string) error {
	t = indirect(t)
	if decodesItself(t) {
		if n.Kind == unstable.Array || n.Kind == unstable.InlineTable {
			return nil // no source of its own: the library hands it over
		}
		return c.custom(t, c.s.p.Raw(n.Raw), key, pos)
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return nil // time.Time and its like: the library knows them
	}
	var ok bool
	switch t.Kind() {
	case reflect.Interface:
		return nil
	case reflect.String:
		ok = n.Kind == unstable.String
	case reflect.Bool:
		ok = n.Kind == unstable.Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		ok = n.Kind == unstable.Integer
	case reflect.Float32, reflect.Float64:
		ok = n.Kind == unstable.Float || n.Kind == unstable.Integer
	case reflect.Slice, reflect.Array:
		if n.Kind != unstable.Array {
			break
		}
		for it := n.Children(); it.Next(); {
			el, at := it.Node(), pos
			if el.Kind != unstable.Array {
				at = c.s.nodePos(el)
			}
			if err := c.value(key, el, t.Elem(), at, " in the array"); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct, reflect.Map:
		ok = n.Kind == unstable.InlineTable // its keys are entries of their own
	default:
		return nil
	}
	if !ok {
		return &posError{pos, fmt.Errorf("%s: want %s%s, got %s", key, describe(t), in, kindName(n.Kind))}
	}
	return nil
}

// custom hands raw, the value of key at pos, to a fresh value of t.
func (c *checker) custom(t reflect.Type, raw []byte, key Key, pos Pos) error {
	u := reflect.New(t).Interface().(unstable.Unmarshaler)
	if err := u.UnmarshalTOML(raw); err != nil {
		return &posError{pos, fmt.Errorf("%s: %w", key, err)}
	}
	return nil
}
