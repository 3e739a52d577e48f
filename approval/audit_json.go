package approval

import (
	"strconv"
	"time"

	"github.com/gatedexec/gatedexec/internal/jsonstr"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// MarshalJSON writes the record as encoding/json writes it from the field
// tags, with Time as RFC 3339 with nanoseconds, in UTC; but by hand:
// encoding/json reflects over Record and every type in it the first time,
// which cost each `gatedexec run` with an audit log about a millisecond.
// It does not escape HTML; json.Marshal, which Log.Write uses, does so as
// it embeds the result. TestRecordJSON holds it to encoding/json's output.
func (r Record) MarshalJSON() ([]byte, error) {
	o := object{b: make([]byte, 0, 512)}
	o.string("time", r.Time.UTC().Format(time.RFC3339Nano))
	o.stringOmit("session", r.Session)
	o.stringOmit("request_id", r.RequestID)
	o.stringOmit("kind", string(r.Kind))
	if r.Attempt != 0 {
		o.int("attempt", int64(r.Attempt))
	}
	o.marshaler("argv", r.Argv)
	o.boolOmit("shell", r.Shell)
	o.marshaler("cwd", r.Cwd)
	list(&o, "rules_matched", r.Rules, appendMatchedRule)
	o.string("decision", r.Decision)
	o.stringOmit("action", r.Action)
	o.stringOmit("approver", r.Approver)
	o.stringOmit("outcome", string(r.Outcome))
	o.stringOmit("reason", r.Reason)
	o.stringOmit("escalation", r.Escalation)
	o.stringOmit("profile", r.Profile)
	if len(r.Layers) > 0 {
		list(&o, "layers", r.Layers, jsonstr.Append)
	}
	o.key("exit")
	if r.Exit == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = strconv.AppendInt(o.b, int64(*r.Exit), 10)
	}
	o.int("duration_ms", r.DurationMS)
	if len(r.Denials) > 0 {
		list(&o, "denials", r.Denials, appendDenial)
	}
	if len(r.Tampered) > 0 {
		list(&o, "tampered", r.Tampered, jsonstr.Append)
	}
	o.stringOmit("error", r.Error)
	if r.Connection != nil {
		o.key("connection")
		o.b = appendConnection(o.b, r.Connection)
	}
	o.boolOmit("after_run", r.AfterRun)
	o.stringOmit("rules_digest", r.RulesDigest)
	o.stringOmit("profile_digest", r.ProfileDigest)
	o.stringOmit("managed_digest", r.ManagedDigest)
	o.stringOmit("version", r.Version)
	return o.close()
}

func appendMatchedRule(b []byte, m MatchedRule) []byte {
	o := object{b: b}
	list(&o, "matched_prefix", m.MatchedPrefix, jsonstr.Append)
	o.string("decision", m.Decision)
	o.stringOmit("justification", m.Justification)
	o.stringOmit("resolved_program", m.ResolvedProgram)
	o.stringOmit("source", m.Source)
	b, _ = o.close()
	return b
}

func appendDenial(b []byte, d Denial) []byte {
	o := object{b: b}
	o.string("kind", d.Kind)
	o.stringOmit("path", d.Path)
	o.stringOmit("host", d.Host)
	if d.Port != 0 {
		o.int("port", int64(d.Port))
	}
	o.string("evidence", d.Evidence)
	b, _ = o.close()
	return b
}

func appendConnection(b []byte, c *egress.Record) []byte {
	o := object{b: b}
	o.string("host", c.Host)
	o.int("port", int64(c.Port))
	o.string("via", c.Via)
	o.string("decision", c.Decision)
	o.stringOmit("rule", c.Rule)
	o.stringOmit("addr", c.Addr)
	o.stringOmit("why", c.Why)
	o.int("bytes_out", c.BytesOut)
	o.int("bytes_in", c.BytesIn)
	o.int("duration_ms", c.DurationMS)
	b, _ = o.close()
	return b
}

// appendList appends xs as encoding/json writes a slice: null when it is
// nil, else an array of its elements, each written by elem.
func appendList[T any](b []byte, xs []T, elem func([]byte, T) []byte) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, x)
	}
	return append(b, ']')
}

// list writes the member k of o: the list xs (appendList).
func list[T any](o *object, k string, xs []T, elem func([]byte, T) []byte) {
	o.key(k)
	o.b = appendList(o.b, xs, elem)
}

// object appends the members of one JSON object, in the order written.
type object struct {
	b   []byte
	n   int
	err error
}

func (o *object) key(k string) {
	if o.n == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = jsonstr.Append(o.b, k)
	o.b = append(o.b, ':')
}

func (o *object) string(k, v string) {
	o.key(k)
	o.b = jsonstr.Append(o.b, v)
}

func (o *object) stringOmit(k, v string) {
	if v != "" {
		o.string(k, v)
	}
}

func (o *object) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *object) uint(k string, v uint64) {
	o.key(k)
	o.b = strconv.AppendUint(o.b, v, 10)
}

func (o *object) bool(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

func (o *object) boolOmit(k string, v bool) {
	if v {
		o.key(k)
		o.b = append(o.b, "true"...)
	}
}

func (o *object) marshaler(k string, v interface{ MarshalJSON() ([]byte, error) }) {
	o.key(k)
	m, err := v.MarshalJSON()
	if err != nil && o.err == nil {
		o.err = err
	}
	o.b = append(o.b, m...)
}

// close ends the object: {} when it has no member.
func (o *object) close() ([]byte, error) {
	if o.n == 0 {
		o.b = append(o.b, '{')
	}
	return append(o.b, '}'), o.err
}
