package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object whose keys keep the order they were written
// in, so that editing one key of a person's settings file leaves the rest
// of it as they wrote it.
type object struct {
	keys []string
	vals map[string]json.RawMessage
	// at is the offset of each value in the file, to name its line in
	// an error.
	at map[string]int64
}

func newObject() *object {
	return &object{vals: map[string]json.RawMessage{}, at: map[string]int64{}}
}

// syntaxError is a JSON syntax error at an offset of the file.
type syntaxError struct {
	offset int64
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }

// parseObject reads data, which must hold one JSON object and nothing
// else; base is data's offset in its file. A syntax error is returned as
// *syntaxError with its offset in the file.
func parseObject(data []byte, base int64) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fileOffset(err, base, base+int64(len(data)))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &syntaxError{base + 1, "want a JSON object"}
	}
	o := newObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fileOffset(err, base, base+int64(len(data)))
		}
		key, _ := tok.(string)
		var v json.RawMessage
		at := base + dec.InputOffset()
		if err := dec.Decode(&v); err != nil {
			return nil, fileOffset(err, base, base+int64(len(data)))
		}
		if _, dup := o.vals[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.vals[key], o.at[key] = v, at
	}
	if _, err := dec.Token(); err != nil {
		return nil, fileOffset(err, base, base+int64(len(data)))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &syntaxError{base + dec.InputOffset(), "more than one JSON value"}
	}
	return o, nil
}

// fileOffset makes a syntax error's offset the file's.
func fileOffset(err error, base, end int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &syntaxError{base + se.Offset, se.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &syntaxError{end, "unexpected end of JSON input"}
	}
	return &syntaxError{base, err.Error()}
}

func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *object) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// MarshalJSON writes the keys in their order.
func (o *object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(o.vals[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// lineCol returns the 1-based line and column of offset in data.
func lineCol(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// positionError names file:line:col of offset in data.
func positionError(file string, data []byte, offset int64, msg string) error {
	line, col := lineCol(data, offset)
	return fmt.Errorf("%s:%d:%d: %s", file, line, col, msg)
}
