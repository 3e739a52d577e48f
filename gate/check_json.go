package gate

import (
	"github.com/gatedexec/gatedexec/internal/jsonstr"
)

// MarshalJSON writes r as encoding/json writes it from the field tags with
// HTML escaping off, but by hand: encoding/json reflects over the types
// on first use, which cost a `gatedexec check` half a millisecond of its
// start. TestCheckResultJSON holds the two equal.
func (r CheckResult) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, `{"decision":`...)
	b = jsonstr.Append(b, r.Decision.String())
	b = append(b, `,"matchedRules":`...)
	var err error
	if b, err = appendMarshaled(b, r.MatchedRules); err != nil {
		return nil, err
	}
	b = append(b, `,"commands":`...)
	if r.Commands == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range r.Commands {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"argv":`...)
			if b, err = appendMarshaled(b, c.Argv); err != nil {
				return nil, err
			}
			b = append(b, `,"matchedRules":`...)
			if b, err = appendMarshaled(b, c.MatchedRules); err != nil {
				return nil, err
			}
			b = append(b, `,"decision":`...)
			b = jsonstr.Append(b, c.Decision.String())
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"reasons":`...)
	if r.Reasons == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, rs := range r.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = jsonstr.Append(b, string(rs.Kind))
			b = append(b, `,"detail":`...)
			b = jsonstr.Append(b, rs.Detail)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"action":`...)
	b = jsonstr.Append(b, string(r.Action))
	return append(b, '}'), nil
}

// appendMarshaled appends what v's own MarshalJSON writes, which is
// already compact, as encoding/json would embed it.
func appendMarshaled(b []byte, v interface{ MarshalJSON() ([]byte, error) }) ([]byte, error) {
	m, err := v.MarshalJSON()
	return append(b, m...), err
}
