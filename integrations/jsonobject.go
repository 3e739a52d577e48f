package integrations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ObjectMembers reads data, which must be exactly one JSON object, into
// its members, each value kept as sent; a repeated key keeps its last
// value, as JSON.parse does. Keys match exactly, as an agent's or an MCP
// client's JSON means them, not case-insensitively as encoding/json's
// struct decoding would. It reads token by token: decoding into a struct
// or a map reflects over the type first, which was most of what reading an
// event cost a hook's start.
func ObjectMembers(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, fmt.Errorf("%v is not an object", tok)
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("key %v is not a string", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		members[key] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return members, nil
}
