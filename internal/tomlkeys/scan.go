package tomlkeys

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Entry is a key where it is written: a [table] or [[array of tables]]
// header, or the key of a key-value (one in an inline table included). Pos
// is where the key's first written part starts.
type Entry struct {
	Key Key
	Pos Pos
	// elems are the string elements of an array value, where each is.
	elems []elem
}

type elem struct {
	value string
	pos   Pos
}

// Doc is the keys of a document, in the order written.
type Doc struct {
	Keys []Entry
	// Unknown are the entries whose key the schema does not know (Decode
	// only), in the order written; a key below an unknown one is not
	// listed again.
	Unknown []Entry
}

// Find returns where key is first written, or where the first key below
// it is when it is only a table that dotted keys create.
func (d *Doc) Find(key ...string) (Pos, bool) {
	if d == nil {
		return Pos{}, false
	}
	for _, e := range d.Keys {
		if slices.Equal(e.Key, key) {
			return e.Pos, true
		}
	}
	for _, e := range d.Keys {
		if len(e.Key) > len(key) && slices.Equal(e.Key[:len(key)], key) {
			return e.Pos, true
		}
	}
	return Pos{}, false
}

// Elem returns where the string value is written in the array that key
// is set to, or where key is when the array does not hold it.
func (d *Doc) Elem(key Key, value string) (Pos, bool) {
	if d == nil {
		return Pos{}, false
	}
	for _, e := range d.Keys {
		if !slices.Equal(e.Key, key) {
			continue
		}
		for _, el := range e.elems {
			if el.value == value {
				return el.pos, true
			}
		}
	}
	return d.Find(key...)
}

// Scan reads the keys of src and where each is written; name is used in
// errors. A syntax error is an *Error at its position, and the keys before
// it are returned with it.
func Scan(name string, src []byte) (*Doc, error) {
	s := newScanner(src)
	if err := s.walk(func(*entry) error { return nil }); err != nil {
		return &s.doc, fileError(name, err)
	}
	return &s.doc, nil
}

// posError is an error of the walk at a position; the caller adds the
// file name.
type posError struct {
	pos Pos
	err error
}

func (e *posError) Error() string { return e.err.Error() }

// fileError turns an error of the walk into an *Error of file name.
func fileError(name string, err error) *Error {
	var pe *posError
	if errors.As(err, &pe) {
		return &Error{File: name, Pos: pe.pos, Err: pe.err}
	}
	return &Error{File: name, Err: err}
}

// maxKeyParts bounds the key parts a document may write. The library's
// decoder looks each key up among all those before it, so that its time
// grows with the square of their number: a megabyte of short keys takes
// it seconds. The schemas have a few dozen.
const maxKeyParts = 4096

// scanner walks a document with the TOML library's parser.
type scanner struct {
	p   unstable.Parser
	src []byte
	// lines holds the offset at which each line starts.
	lines []int
	doc   Doc
	// parts counts the key parts written so far.
	parts int
}

func newScanner(src []byte) *scanner {
	// The parser finds a node's offset by comparing capacities; clipped,
	// the end of src is the end of its backing array.
	src = src[:len(src):len(src)]
	s := &scanner{src: src, lines: []int{0}}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		s.lines = append(s.lines, i)
	}
	s.p.Reset(src)
	return s
}

// pos returns the position of a byte offset.
func (s *scanner) pos(off int) Pos {
	off = min(max(off, 0), len(s.src))
	line := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off })
	return Pos{Line: line, Col: off - s.lines[line-1] + 1}
}

// at returns the position of b, a slice of the document (one that is not
// is placed at the start or the end).
func (s *scanner) at(b []byte) Pos {
	return s.pos(cap(s.src) - cap(b))
}

// nodePos returns where n starts. Arrays have no range of their own and
// are placed by the caller.
func (s *scanner) nodePos(n *unstable.Node) Pos {
	return s.pos(int(n.Raw.Offset))
}

// entry is what the walk finds: a table header, or a key-value. Its nodes
// are valid only during the visit.
type entry struct {
	kind unstable.Kind // Table, ArrayTable or KeyValue
	key  Key
	// from is how many parts of key come from the header or the value
	// the entry is in; parts holds the nodes of the others.
	from  int
	parts []*unstable.Node
	kv    *unstable.Node // the KeyValue node
	value *unstable.Node // kv's value
}

// partPos returns where part i of e's key is written: the first written
// part for one that comes from an enclosing header.
func (s *scanner) partPos(e *entry, i int) Pos {
	return s.nodePos(e.parts[max(i-e.from, 0)])
}

// valuePos returns where a key-value's value starts.
func (s *scanner) valuePos(e *entry) Pos {
	return s.pos(s.valueStart(e.kv))
}

// valueStart returns the offset at which kv's value starts: after the
// last part of the key, the blanks, '=' and blanks again, as the library
// finds it (arrays have no range of their own).
func (s *scanner) valueStart(kv *unstable.Node) int {
	var last unstable.Range
	for it := kv.Key(); it.Next(); {
		last = it.Node().Raw
	}
	i := int(last.Offset + last.Length)
	skip := func() {
		for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t') {
			i++
		}
	}
	skip()
	i++ // '='
	skip()
	return i
}

// rawValue returns the source of a key-value's value: the bytes the TOML
// library hands to an unstable.Unmarshaler for it.
func (s *scanner) rawValue(kv *unstable.Node) []byte {
	if v := kv.Value(); v.Kind != unstable.Array && v.Kind != unstable.InlineTable {
		return s.p.Raw(v.Raw)
	}
	return s.src[s.valueStart(kv) : kv.Raw.Offset+kv.Raw.Length]
}

// walk visits every key of the document in the order written, records
// it in s.doc and calls visit, stopping at visit's first error or a
// syntax error (a *posError).
func (s *scanner) walk(visit func(*entry) error) error {
	var table Key
	for s.p.NextExpression() {
		expr := s.p.Expression()
		var err error
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			e := &entry{kind: expr.Kind}
			for it := expr.Key(); it.Next(); {
				e.key = append(e.key, string(it.Node().Data))
				e.parts = append(e.parts, it.Node())
			}
			table = e.key
			err = s.visit(e, visit)
		case unstable.KeyValue:
			err = s.keyValue(table, expr, visit)
		}
		if err != nil {
			return err
		}
	}
	if err := s.p.Error(); err != nil {
		var pe *unstable.ParserError
		if errors.As(err, &pe) {
			return &posError{pos: s.at(pe.Highlight), err: errors.New(pe.Message)}
		}
		return &posError{err: fmt.Errorf("parsing: %w", err)}
	}
	return nil
}

// keyValue visits the key-value kv below the key prefix, and the keys of
// the inline tables in its value.
func (s *scanner) keyValue(prefix Key, kv *unstable.Node, visit func(*entry) error) error {
	e := &entry{kind: unstable.KeyValue, key: slices.Clip(prefix), from: len(prefix), kv: kv, value: kv.Value()}
	for it := kv.Key(); it.Next(); {
		e.key = append(e.key, string(it.Node().Data))
		e.parts = append(e.parts, it.Node())
	}
	if err := s.visit(e, visit); err != nil {
		return err
	}
	return s.inner(e.key, e.value, visit)
}

// inner visits the keys of the inline tables in value, an array's
// elements being below the array's key as those of an array of tables
// are.
func (s *scanner) inner(key Key, value *unstable.Node, visit func(*entry) error) error {
	switch value.Kind {
	case unstable.InlineTable:
		for it := value.Children(); it.Next(); {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				if err := s.keyValue(key, n, visit); err != nil {
					return err
				}
			}
		}
	case unstable.Array:
		for it := value.Children(); it.Next(); {
			if err := s.inner(key, it.Node(), visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// visit records e in the document and calls visit.
func (s *scanner) visit(e *entry, visit func(*entry) error) error {
	d := Entry{Key: e.key, Pos: s.nodePos(e.parts[0])}
	if s.parts += len(e.parts); s.parts > maxKeyParts {
		return &posError{d.Pos, fmt.Errorf("too many keys: more than %d key parts", maxKeyParts)}
	}
	if e.kind == unstable.KeyValue && e.value.Kind == unstable.Array {
		for it := e.value.Children(); it.Next(); {
			if n := it.Node(); n.Kind == unstable.String {
				d.elems = append(d.elems, elem{value: string(n.Data), pos: s.nodePos(n)})
			}
		}
	}
	s.doc.Keys = append(s.doc.Keys, d)
	return visit(e)
}
