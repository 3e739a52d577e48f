package execpolicy

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// CodexJSON renders matches exactly as `codex execpolicy check` prints
// them (without the final newline): the matched rules in order and, when
// any matched, the most severe decision. Keys come in Codex's order,
// "justification" and "resolvedProgram" only when set, and strings are
// escaped as serde_json escapes them, which is why this is written out by
// hand rather than with encoding/json (it escapes U+2028 and U+2029). With
// pretty it matches serde_json's to_string_pretty: two-space indent, ": "
// between key and value.
func CodexJSON(matches []RuleMatch, pretty bool) []byte {
	top := jsonObject{{"matchedRules", CodexRules(matches)}}
	if d := Strictest(matches); d != 0 {
		top = append(top, jsonField{"decision", jsonString(d.String())})
	}
	var buf bytes.Buffer
	top.write(&buf, pretty, 0)
	return buf.Bytes()
}

// CodexRules is a list of matches that marshals to JSON as Codex's
// "matchedRules" array, for embedding in gatedexec's own JSON output.
type CodexRules []RuleMatch

// MarshalJSON implements json.Marshaler with Codex's shape and escaping.
func (rs CodexRules) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	rs.write(&buf, false, 0)
	return buf.Bytes(), nil
}

func (rs CodexRules) write(buf *bytes.Buffer, pretty bool, depth int) {
	arr := make(jsonArray, len(rs))
	for i, m := range rs {
		prefix := make(jsonArray, len(m.MatchedPrefix))
		for j, tok := range m.MatchedPrefix {
			prefix[j] = jsonString(tok)
		}
		fields := jsonObject{{"matchedPrefix", prefix}, {"decision", jsonString(m.Decision.String())}}
		if m.ResolvedProgram != "" {
			fields = append(fields, jsonField{"resolvedProgram", jsonString(m.ResolvedProgram)})
		}
		if m.Justification != "" {
			fields = append(fields, jsonField{"justification", jsonString(m.Justification)})
		}
		arr[i] = jsonObject{{"prefixRuleMatch", fields}}
	}
	arr.write(buf, pretty, depth)
}

// jsonValue is the little JSON model CodexJSON needs: objects keep their
// key order, which encoding/json maps would not.
type jsonValue interface {
	write(buf *bytes.Buffer, pretty bool, depth int)
}

type (
	jsonString string
	jsonArray  []jsonValue
	jsonObject []jsonField
	jsonField  struct {
		key   string
		value jsonValue
	}
)

func newline(buf *bytes.Buffer, pretty bool, depth int) {
	if pretty {
		buf.WriteByte('\n')
		buf.WriteString(strings.Repeat("  ", depth))
	}
}

func (a jsonArray) write(buf *bytes.Buffer, pretty bool, depth int) {
	writeItems(buf, pretty, depth, '[', ']', len(a), func(i int) {
		a[i].write(buf, pretty, depth+1)
	})
}

func (o jsonObject) write(buf *bytes.Buffer, pretty bool, depth int) {
	writeItems(buf, pretty, depth, '{', '}', len(o), func(i int) {
		jsonString(o[i].key).write(buf, pretty, depth+1)
		buf.WriteByte(':')
		if pretty {
			buf.WriteByte(' ')
		}
		o[i].value.write(buf, pretty, depth+1)
	})
}

// writeItems writes the n items of an array or object between open and
// close, separated by commas and, when pretty, each on a line of its own
// one level deeper, as serde_json lays them out; item writes the i-th.
func writeItems(buf *bytes.Buffer, pretty bool, depth int, open, close byte, n int, item func(i int)) {
	buf.WriteByte(open)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		newline(buf, pretty, depth+1)
		item(i)
	}
	if n > 0 {
		newline(buf, pretty, depth)
	}
	buf.WriteByte(close)
}

// write escapes s as serde_json does: \" \\ \b \f \n \r \t, other control
// characters as \u00xx (lower-case hex), everything else verbatim. Invalid
// UTF-8, which a Rust String cannot hold, becomes U+FFFD.
func (s jsonString) write(buf *bytes.Buffer, _ bool, _ int) {
	const hex = "0123456789abcdef"
	str := string(s)
	if !utf8.ValidString(str) {
		str = strings.ToValidUTF8(str, "\uFFFD")
	}
	buf.WriteByte('"')
	for i := 0; i < len(str); i++ {
		c := str[i]
		switch c {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if c < 0x20 {
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xf])
			} else {
				buf.WriteByte(c)
			}
		}
	}
	buf.WriteByte('"')
}
