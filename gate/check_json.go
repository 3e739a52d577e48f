package gate

import (
	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/internal/jsonstr"
)

// MarshalJSON writes r as encoding/json writes it from the field tags with
// HTML escaping off, but by hand: encoding/json reflects over the types
// on first use, which cost a `gatedexec check` half a millisecond of its
// start. TestCheckResultJSON holds the two equal.
func (r CheckResult) MarshalJSON() ([]byte, error) {
	o := jsonstr.Object{B: make([]byte, 0, 256)}
	o.String("decision", r.Decision.String())
	o.Marshaler("matchedRules", r.MatchedRules)
	jsonstr.List(&o, "commands", r.Commands, appendCheckedCommand)
	jsonstr.List(&o, "reasons", r.Reasons, approval.AppendReason)
	o.String("action", string(r.Action))
	return o.Close()
}

// appendCheckedCommand appends c; neither of its lists can fail to
// marshal (approval.Argv, execpolicy.CodexRules).
func appendCheckedCommand(b []byte, c CheckedCommand) []byte {
	o := jsonstr.Object{B: b}
	o.Marshaler("argv", c.Argv)
	o.Marshaler("matchedRules", c.MatchedRules)
	o.String("decision", c.Decision.String())
	b, _ = o.Close()
	return b
}
