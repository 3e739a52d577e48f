package tomlkeys

import (
	"fmt"

	"github.com/pelletier/go-toml/v2"
)

// Value reads raw, the source of one TOML value as the TOML library hands
// it to an unstable.Unmarshaler, into what the library decodes it to in an
// any: a string, int64, float64, bool, []any or map[string]any, a
// time.Time for an offset datetime, a toml.LocalDateTime, LocalDate or
// LocalTime for the others.
func Value(raw []byte) (any, error) {
	doc := make([]byte, 0, len("v = ")+len(raw)+1)
	doc = append(append(append(doc, "v = "...), raw...), '\n')
	var v struct {
		V any `toml:"v"`
	}
	if err := toml.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("not one TOML value: %q: %w", raw, err)
	}
	return v.V, nil
}
