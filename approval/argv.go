package approval

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/gatedexec/gatedexec/internal/jsonstr"
)

// Argv is an argument vector as gatedexec's JSON records hold it
// (requests, session files, audit records): exactly the bytes of each
// argument. An argument that is valid UTF-8 is a JSON string, so the
// records of ordinary commands keep the shape of DESIGN §2 and §4; any
// other argument is an object {"b64": "..."} holding its bytes in standard
// base64. A plain JSON string cannot carry them: encoding/json turns an
// invalid byte into U+FFFD, and then `touch $'h\xff'` and `touch h\uFFFD`
// would be one session approval.
type Argv []string

// MarshalJSON writes a as a JSON array; a nil Argv is null.
func (a Argv) MarshalJSON() ([]byte, error) {
	return jsonstr.AppendList(nil, a, appendBytes), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Argv) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*a = nil
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("argv: %w", err)
	}
	out := make(Argv, 0, len(raw))
	for i, r := range raw {
		s, err := decodeBytes(r)
		if err != nil {
			return fmt.Errorf("argv[%d]: %w", i, err)
		}
		out = append(out, s)
	}
	*a = out
	return nil
}

// Bytes is one string held exactly, encoded as Argv encodes an argument:
// a JSON string when it is valid UTF-8, else {"b64": "..."}. Paths (the
// working directory) are bytes too, and a session approval for one
// directory must not cover another that differs only in an invalid byte.
type Bytes string

// MarshalJSON writes b as a JSON string or a {"b64": ...} object.
func (b Bytes) MarshalJSON() ([]byte, error) { return appendBytes(nil, string(b)), nil }

// UnmarshalJSON reads what MarshalJSON writes.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	s, err := decodeBytes(data)
	if err != nil {
		return err
	}
	*b = Bytes(s)
	return nil
}

// appendBytes appends s without HTML escaping, so that "a<b" in an argv
// reads as itself, as the rest of gatedexec's JSON does; a string that is
// not valid UTF-8 is {"b64": "..."}. It writes by hand what encoding/json
// would, without its first-use cost (jsonstr).
func appendBytes(b []byte, s string) []byte {
	if utf8.ValidString(s) {
		return jsonstr.Append(b, s)
	}
	b = append(b, `{"b64":`...)
	b = jsonstr.Append(b, base64.StdEncoding.EncodeToString([]byte(s)))
	return append(b, '}')
}

// decodeBytes reads a JSON string, or an object with exactly the one key
// "b64" holding strict standard base64; anything else is an error, not a
// guess.
func decodeBytes(r json.RawMessage) (string, error) {
	r = bytes.TrimSpace(r)
	if len(r) > 0 && r[0] == '"' {
		var s string
		err := json.Unmarshal(r, &s)
		return s, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(r, &obj); err != nil || len(obj) != 1 || obj["b64"] == nil {
		return "", fmt.Errorf(`want a string or {"b64": "..."}, not %.40s`, r)
	}
	var enc string
	if err := json.Unmarshal(obj["b64"], &enc); err != nil {
		return "", fmt.Errorf("b64: %w", err)
	}
	b, err := base64.StdEncoding.Strict().DecodeString(enc)
	if err != nil {
		return "", fmt.Errorf("b64: %w", err)
	}
	return string(b), nil
}
