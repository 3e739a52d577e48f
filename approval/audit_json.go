package approval

import (
	"strconv"
	"time"

	"github.com/gatedexec/gatedexec/execpolicy"
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
	o := jsonstr.Object{B: make([]byte, 0, 512)}
	o.String("time", r.Time.UTC().Format(time.RFC3339Nano))
	o.StringOmit("session", r.Session)
	o.StringOmit("request_id", r.RequestID)
	o.StringOmit("kind", string(r.Kind))
	if r.Attempt != 0 {
		o.Int("attempt", int64(r.Attempt))
	}
	o.Marshaler("argv", r.Argv)
	o.BoolOmit("shell", r.Shell)
	o.BoolOmit("agent_terminal", r.AgentTerminal)
	o.Marshaler("cwd", r.Cwd)
	jsonstr.List(&o, "rules_matched", r.Rules, appendMatchedRule)
	o.String("decision", r.Decision)
	if len(r.Reasons) > 0 {
		jsonstr.List(&o, "reasons", r.Reasons, AppendReason)
	}
	o.StringOmit("action", r.Action)
	o.StringOmit("approver", r.Approver)
	o.StringOmit("outcome", string(r.Outcome))
	o.StringOmit("reason", r.Reason)
	o.StringOmit("escalation", r.Escalation)
	o.StringOmit("profile", r.Profile)
	if len(r.Layers) > 0 {
		jsonstr.List(&o, "layers", r.Layers, jsonstr.Append)
	}
	o.Key("exit")
	if r.Exit == nil {
		o.B = append(o.B, "null"...)
	} else {
		o.B = strconv.AppendInt(o.B, int64(*r.Exit), 10)
	}
	o.Int("duration_ms", r.DurationMS)
	if len(r.Denials) > 0 {
		jsonstr.List(&o, "denials", r.Denials, appendDenial)
	}
	if len(r.Tampered) > 0 {
		jsonstr.List(&o, "tampered", r.Tampered, jsonstr.Append)
	}
	o.StringOmit("error", r.Error)
	if r.Connection != nil {
		o.Key("connection")
		o.B = appendConnection(o.B, r.Connection)
	}
	o.BoolOmit("after_run", r.AfterRun)
	o.StringOmit("rules_digest", r.RulesDigest)
	o.StringOmit("profile_digest", r.ProfileDigest)
	o.StringOmit("managed_digest", r.ManagedDigest)
	o.StringOmit("version", r.Version)
	return o.Close()
}

func appendMatchedRule(b []byte, m MatchedRule) []byte {
	o := jsonstr.Object{B: b}
	jsonstr.List(&o, "matched_prefix", m.MatchedPrefix, jsonstr.Append)
	o.String("decision", m.Decision)
	o.StringOmit("justification", m.Justification)
	o.StringOmit("resolved_program", m.ResolvedProgram)
	o.StringOmit("source", m.Source)
	b, _ = o.Close()
	return b
}

// AppendReason appends r to b as JSON ({"kind", "detail"}), as the audit
// record and check's output write a reason.
func AppendReason(b []byte, r execpolicy.Reason) []byte {
	o := jsonstr.Object{B: b}
	o.String("kind", string(r.Kind))
	o.String("detail", r.Detail)
	b, _ = o.Close()
	return b
}

func appendDenial(b []byte, d Denial) []byte {
	o := jsonstr.Object{B: b}
	o.String("kind", d.Kind)
	o.StringOmit("path", d.Path)
	o.StringOmit("host", d.Host)
	if d.Port != 0 {
		o.Int("port", int64(d.Port))
	}
	o.String("evidence", d.Evidence)
	b, _ = o.Close()
	return b
}

func appendConnection(b []byte, c *egress.Record) []byte {
	o := jsonstr.Object{B: b}
	o.String("host", c.Host)
	o.Int("port", int64(c.Port))
	o.String("via", c.Via)
	o.String("decision", c.Decision)
	o.StringOmit("rule", c.Rule)
	o.StringOmit("addr", c.Addr)
	o.StringOmit("why", c.Why)
	o.Int("bytes_out", c.BytesOut)
	o.Int("bytes_in", c.BytesIn)
	o.Int("duration_ms", c.DurationMS)
	b, _ = o.Close()
	return b
}
