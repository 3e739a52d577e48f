package auditlog

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
)

// decoder decodes audit lines into Records. encoding/json's reflection
// was most of what reading a log cost, so lines as gatedexec writes them
// take a fast path: one pass that checks the line's whole syntax and
// fills the fields directly. Anything the fast path is not sure to decode
// exactly as json.Unmarshal would (a key in another case or escaped, a key
// twice, an argument held as {"b64": ...}, invalid UTF-8, a value of the
// wrong type, a line that is not valid JSON) goes to json.Unmarshal,
// which then decides, and words the error of a line that is not a record.
type decoder struct {
	// intern holds strings seen often (decisions, profiles, sessions,
	// command words), so that a record's strings need no allocation of
	// their own; it is bounded, as a log's values are data.
	intern map[string]string
	// words0 and denials0 are scratch for the arrays being decoded.
	words0   []string
	denials0 []Denial
}

// maxIntern bounds the strings a decoder keeps, and maxInternLen their
// length.
const (
	maxIntern    = 4096
	maxInternLen = 64
	// maxDepth bounds the nesting the fast path follows in values it
	// skips; deeper lines go to json.Unmarshal.
	maxDepth = 64
)

func newDecoder() *decoder { return &decoder{intern: make(map[string]string)} }

// decode fills r (zeroed first) from the line raw.
func (d *decoder) decode(raw []byte, r *Record) error {
	*r = Record{}
	if d.fast(raw, r) {
		return nil
	}
	*r = Record{}
	return json.Unmarshal(raw, r)
}

// str returns b as a string, interned when short.
func (d *decoder) str(b []byte) string {
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(b) <= maxInternLen && len(d.intern) < maxIntern {
		d.intern[s] = s
	}
	return s
}

// recordKey numbers the top-level keys the fast path decodes, as bits of
// a mask that catches a key given twice; -1 for any other key.
func recordKey(key []byte) int {
	switch string(key) {
	case "time":
		return 0
	case "session":
		return 1
	case "request_id":
		return 2
	case "kind":
		return 3
	case "attempt":
		return 4
	case "argv":
		return 5
	case "shell":
		return 6
	case "cwd":
		return 7
	case "rules_matched":
		return 8
	case "decision":
		return 9
	case "action":
		return 10
	case "approver":
		return 11
	case "outcome":
		return 12
	case "reason":
		return 13
	case "profile":
		return 14
	case "exit":
		return 15
	case "denials":
		return 16
	case "error":
		return 17
	case "after_run":
		return 18
	case "rules_digest":
		return 19
	case "profile_digest":
		return 20
	case "managed_digest":
		return 21
	case "version":
		return 22
	case "reasons":
		return 23
	case "agent_terminal":
		return 24
	}
	return -1
}

// fast decodes raw into r, reporting false when json.Unmarshal must.
func (d *decoder) fast(raw []byte, r *Record) bool {
	l := lexer{b: raw}
	l.ws()
	if !l.eat('{') {
		return false
	}
	var seen uint32
	ok := l.members(func(key []byte) bool {
		k := recordKey(key)
		if k < 0 {
			return l.skip(0)
		}
		bit := uint(k)
		if seen&(1<<bit) != 0 {
			return false
		}
		seen |= 1 << bit
		return d.field(&l, bit, r)
	})
	l.ws()
	return ok && l.i == len(l.b)
}

// field decodes the value of the top-level key numbered bit.
func (d *decoder) field(l *lexer, bit uint, r *Record) bool {
	switch bit {
	case 0:
		if l.null() {
			return true
		}
		start := l.i
		if _, _, ok := l.str(); !ok {
			return false
		}
		// The very method json.Unmarshal calls.
		return r.Time.UnmarshalJSON(l.b[start:l.i]) == nil
	case 4:
		return l.intField(&r.Attempt)
	case 5:
		return d.words(l, (*[]string)(&r.Argv))
	case 6:
		return l.boolField(&r.Shell)
	case 7:
		// approval.Bytes refuses null; an object ({"b64": ...}) is
		// json.Unmarshal's to decode.
		if l.peek() != '"' {
			return false
		}
		s, ok := d.string(l, true)
		r.Cwd = approval.Bytes(s)
		return ok
	case 8:
		return d.rules(l, &r.Rules)
	case 15:
		if l.null() {
			r.Exit = nil
			return true
		}
		var n int
		if !l.intField(&n) {
			return false
		}
		r.Exit = &n
		return true
	case 16:
		return d.denials(l, &r.Denials)
	case 18:
		return l.boolField(&r.AfterRun)
	case 23:
		return d.reasons(l, &r.Reasons)
	case 24:
		return l.boolField(&r.AgentTerminal)
	}
	switch bit {
	case 2, 13, 17:
		// Request ids, reasons and errors are all different.
		return d.strField(l, stringField(bit, r), false)
	}
	return d.strField(l, stringField(bit, r), true)
}

// stringField is the string field of r that the key numbered bit names.
func stringField(bit uint, r *Record) *string {
	switch bit {
	case 1:
		return &r.Session
	case 2:
		return &r.RequestID
	case 3:
		return &r.Kind
	case 9:
		return &r.Decision
	case 10:
		return &r.Action
	case 11:
		return &r.Approver
	case 12:
		return &r.Outcome
	case 13:
		return &r.Reason
	case 14:
		return &r.Profile
	case 17:
		return &r.Error
	case 19:
		return &r.RulesDigest
	case 20:
		return &r.ProfileDigest
	case 21:
		return &r.ManagedDigest
	}
	return &r.Version
}

// strField decodes a string or null (which leaves *dst as it is, as
// json.Unmarshal does) into dst, interned when intern is set: for fields
// of few values (decisions, profiles), not for those of many.
func (d *decoder) strField(l *lexer, dst *string, intern bool) bool {
	if l.null() {
		return true
	}
	if l.peek() != '"' {
		return false
	}
	s, ok := d.string(l, intern)
	if ok {
		*dst = s
	}
	return ok
}

// string decodes the string at l: directly when it holds no escape,
// with json.Unmarshal's own unquoting when it does.
func (d *decoder) string(l *lexer, intern bool) (string, bool) {
	start := l.i
	content, flags, ok := l.str()
	switch {
	case !ok:
		return "", false
	case flags&strEscaped != 0:
		var s string
		if json.Unmarshal(l.b[start:l.i], &s) != nil {
			return "", false
		}
		return s, true
	case flags&strNonASCII != 0 && !utf8.Valid(content):
		// json.Unmarshal replaces invalid bytes with U+FFFD.
		return "", false
	}
	if !intern {
		return string(content), true
	}
	return d.str(content), true
}

// words decodes an array of strings, or null, into dst. An element that
// is not a string (an argument held as {"b64": ...}) is json.Unmarshal's.
func (d *decoder) words(l *lexer, dst *[]string) bool {
	if l.null() {
		*dst = nil
		return true
	}
	// Gathered in the decoder's scratch and copied once, at its length.
	d.words0 = d.words0[:0]
	ok := l.elements(func() bool {
		if l.peek() != '"' {
			return false
		}
		s, ok := d.string(l, false)
		d.words0 = append(d.words0, s)
		return ok
	})
	*dst = append(make([]string, 0, len(d.words0)), d.words0...)
	clear(d.words0)
	return ok
}

// rules decodes rules_matched.
func (d *decoder) rules(l *lexer, dst *[]Rule) bool {
	if l.null() {
		*dst = nil
		return true
	}
	out := []Rule{}
	ok := l.elements(func() bool {
		var m Rule
		ok := l.object(ruleKeys, func(k int) bool {
			switch k {
			case 0:
				return d.words(l, &m.MatchedPrefix)
			case 1:
				return d.strField(l, &m.Decision, true)
			}
			return d.strField(l, &m.Source, true)
		})
		out = append(out, m)
		return ok
	})
	*dst = out
	return ok
}

var ruleKeys = []string{"matched_prefix", "decision", "source"}

// reasons decodes reasons.
func (d *decoder) reasons(l *lexer, dst *[]Reason) bool {
	if l.null() {
		*dst = nil
		return true
	}
	out := []Reason{}
	ok := l.elements(func() bool {
		var r Reason
		ok := l.object(reasonKeys, func(k int) bool {
			if k == 0 {
				var kind string
				ok := d.strField(l, &kind, true)
				r.Kind = execpolicy.ReasonKind(kind)
				return ok
			}
			// Details name paths and commands: all different.
			return d.strField(l, &r.Detail, false)
		})
		out = append(out, r)
		return ok
	})
	*dst = out
	return ok
}

var reasonKeys = []string{"kind", "detail"}

// denials decodes denials.
func (d *decoder) denials(l *lexer, dst *[]Denial) bool {
	if l.null() {
		*dst = nil
		return true
	}
	d.denials0 = d.denials0[:0]
	ok := l.elements(func() bool {
		var dn Denial
		ok := l.object(denialKeys, func(k int) bool {
			switch k {
			case 0:
				return d.strField(l, &dn.Kind, true)
			case 1:
				return d.strField(l, &dn.Path, false)
			case 2:
				return d.strField(l, &dn.Host, true)
			}
			return l.intField(&dn.Port)
		})
		d.denials0 = append(d.denials0, dn)
		return ok
	})
	*dst = append(make([]Denial, 0, len(d.denials0)), d.denials0...)
	clear(d.denials0)
	return ok
}

var denialKeys = []string{"kind", "path", "host", "port"}

// object reads a JSON object whose members named in keys (at most 32)
// member decodes, given the key's index; any other member is skipped,
// and a key of keys given twice fails it, as a record's own keys do.
func (l *lexer) object(keys []string, member func(k int) bool) bool {
	if !l.eat('{') {
		return false
	}
	var seen uint32
	return l.members(func(key []byte) bool {
		for k, name := range keys {
			if string(key) != name {
				continue
			}
			if seen&(1<<k) != 0 {
				return false
			}
			seen |= 1 << k
			return member(k)
		}
		return l.skip(1)
	})
}

// lexer reads JSON text from b at i, checking its syntax as
// encoding/json does.
type lexer struct {
	b []byte
	i int
}

// The flags of a string: an escape in it, a byte past ASCII.
const (
	strEscaped = 1 << iota
	strNonASCII
)

func (l *lexer) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

func (l *lexer) peek() byte {
	l.ws()
	if l.i < len(l.b) {
		return l.b[l.i]
	}
	return 0
}

// eat consumes c, after white space.
func (l *lexer) eat(c byte) bool {
	if l.peek() != c {
		return false
	}
	l.i++
	return true
}

// word consumes the literal w.
func (l *lexer) word(w string) bool {
	if len(l.b)-l.i < len(w) || string(l.b[l.i:l.i+len(w)]) != w {
		return false
	}
	l.i += len(w)
	return true
}

// null consumes a null, reporting whether there was one.
func (l *lexer) null() bool { return l.peek() == 'n' && l.word("null") }

// str consumes a string, returning what is between its quotes and its
// flags.
func (l *lexer) str() ([]byte, int, bool) {
	if !l.eat('"') {
		return nil, 0, false
	}
	start, flags := l.i, 0
	for l.i < len(l.b) {
		c := l.b[l.i]
		switch {
		case c == '"':
			l.i++
			return l.b[start : l.i-1], flags, true
		case c == '\\':
			flags |= strEscaped
			if l.i+1 >= len(l.b) {
				return nil, 0, false
			}
			switch l.b[l.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				l.i += 2
			case 'u':
				if len(l.b)-l.i < 6 {
					return nil, 0, false
				}
				for _, h := range l.b[l.i+2 : l.i+6] {
					if !isHex(h) {
						return nil, 0, false
					}
				}
				l.i += 6
			default:
				return nil, 0, false
			}
		case c < 0x20:
			return nil, 0, false
		default:
			if c >= 0x80 {
				flags |= strNonASCII
			}
			l.i++
		}
	}
	return nil, 0, false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// num consumes a number, returning its text.
func (l *lexer) num() ([]byte, bool) {
	l.ws()
	start := l.i
	digits := func() bool {
		n := l.i
		for l.i < len(l.b) && isDigit(l.b[l.i]) {
			l.i++
		}
		return l.i > n
	}
	if l.i < len(l.b) && l.b[l.i] == '-' {
		l.i++
	}
	switch {
	case l.i < len(l.b) && l.b[l.i] == '0':
		l.i++
	case !digits():
		return nil, false
	}
	if l.i < len(l.b) && l.b[l.i] == '.' {
		l.i++
		if !digits() {
			return nil, false
		}
	}
	if l.i < len(l.b) && (l.b[l.i] == 'e' || l.b[l.i] == 'E') {
		l.i++
		if l.i < len(l.b) && (l.b[l.i] == '+' || l.b[l.i] == '-') {
			l.i++
		}
		if !digits() {
			return nil, false
		}
	}
	return l.b[start:l.i], true
}

// intField decodes an integer, or null (leaving *dst), into dst. A
// fraction or an exponent is json.Unmarshal's to refuse.
func (l *lexer) intField(dst *int) bool {
	if l.null() {
		return true
	}
	text, ok := l.num()
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(string(text), 10, strconv.IntSize)
	if err != nil {
		return false
	}
	*dst = int(n)
	return true
}

// boolField decodes true, false or null (leaving *dst) into dst.
func (l *lexer) boolField(dst *bool) bool {
	switch l.peek() {
	case 't':
		*dst = true
		return l.word("true")
	case 'f':
		*dst = false
		return l.word("false")
	}
	return l.null()
}

// members reads the members of an object whose "{" was consumed, calling
// fn with each key, positioned at its value. A key that is escaped, not
// ASCII or not in lower case is refused: json.Unmarshal matches keys
// without regard to case.
func (l *lexer) members(fn func(key []byte) bool) bool {
	if l.eat('}') {
		return true
	}
	for {
		if l.peek() != '"' {
			return false
		}
		key, flags, ok := l.str()
		if !ok || flags != 0 {
			return false
		}
		for _, c := range key {
			if 'A' <= c && c <= 'Z' {
				return false
			}
		}
		if !l.eat(':') || !fn(key) {
			return false
		}
		if l.eat('}') {
			return true
		}
		if !l.eat(',') {
			return false
		}
	}
}

// elements reads the elements of an array, calling fn at each.
func (l *lexer) elements(fn func() bool) bool {
	if !l.eat('[') {
		return false
	}
	if l.eat(']') {
		return true
	}
	for {
		if !fn() {
			return false
		}
		if l.eat(']') {
			return true
		}
		if !l.eat(',') {
			return false
		}
	}
}

// skip consumes any value, checking its syntax.
func (l *lexer) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch c := l.peek(); {
	case c == '{':
		l.i++
		return l.members(func([]byte) bool { return l.skip(depth + 1) })
	case c == '[':
		return l.elements(func() bool { return l.skip(depth + 1) })
	case c == '"':
		_, _, ok := l.str()
		return ok
	case c == 't':
		return l.word("true")
	case c == 'f':
		return l.word("false")
	case c == 'n':
		return l.word("null")
	case c == '-' || isDigit(c):
		_, ok := l.num()
		return ok
	}
	return false
}
