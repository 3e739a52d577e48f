package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gatedexec/gatedexec/integrations"
)

// decodeInput reads run_command's arguments as its input schema has them
// (jsonschema.For[Input]): an object with a string "command", and
// optionally a string "cwd" and a number "timeout", nothing else. Keys
// match exactly, as the schema's do, not case-insensitively as
// encoding/json's struct decoding would. It stands in for the SDK's
// per-call validation, which reflects over the schema and the JSON twice
// per call, once each way.
func decodeInput(raw json.RawMessage) (Input, error) {
	var in Input
	if len(bytes.TrimSpace(raw)) == 0 {
		return in, errors.New("missing properties: command")
	}
	members, err := integrations.ObjectMembers(raw)
	if err != nil {
		return in, errors.New("arguments: want a JSON object")
	}
	haveCommand := false
	for k, v := range members {
		var err error
		switch k {
		case "command":
			haveCommand = true
			err = decodeMember(v, &in.Command)
		case "cwd":
			err = decodeMember(v, &in.Cwd)
		case "timeout":
			err = decodeMember(v, &in.Timeout)
		default:
			return in, fmt.Errorf("unexpected property %q", k)
		}
		if err != nil {
			return in, fmt.Errorf("property %q: %w", k, err)
		}
	}
	if !haveCommand {
		return in, errors.New("missing properties: command")
	}
	return in, nil
}

// decodeMember decodes one member's value into v, a string or a number:
// null, which encoding/json would take as absent, is of neither type.
func decodeMember(raw json.RawMessage, v any) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		return errors.New("null: want a value of the property's type")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: want a %s", te.Value, te.Type)
		}
		return err
	}
	return nil
}
