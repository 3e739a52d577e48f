package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/sandbox"
)

// Kind says what an approval request is for.
type Kind string

// The request kinds of DESIGN §4.
const (
	// KindExec asks whether a command may run at all.
	KindExec Kind = "exec"
	// KindEscalation asks whether a command the sandbox stopped may be
	// re-run with more access.
	KindEscalation Kind = "escalation"
	// KindConnection is a connection of a run under network mode "proxy"
	// (an audit record; its Connection says where to and how it ended).
	KindConnection Kind = "connection"
)

// Outcome is an approver's answer.
type Outcome string

// The outcomes of DESIGN §4.
const (
	Approved           Outcome = "approved"
	ApprovedForSession Outcome = "approved_for_session"
	ApprovedAlways     Outcome = "approved_always"
	Denied             Outcome = "denied"
	// Abort denies and asks the caller to stop the whole agent turn.
	Abort Outcome = "abort"
	// Deferred means nobody answered yet: the caller exits 75 and the host
	// re-runs the command with --approve or --deny.
	Deferred Outcome = "deferred"
)

// Approves reports whether o lets the command run.
func (o Outcome) Approves() bool {
	return o == Approved || o == ApprovedForSession || o == ApprovedAlways
}

// valid reports whether o is an outcome an external approver may return.
// Deferred is not: only the defer approver produces it.
func (o Outcome) valid() bool {
	switch o {
	case Approved, ApprovedForSession, ApprovedAlways, Denied, Abort:
		return true
	}
	return false
}

// MatchedRule is one rule that matched the command, as shown to approvers.
type MatchedRule struct {
	MatchedPrefix   []string `json:"matched_prefix"`
	Decision        string   `json:"decision"`
	Justification   string   `json:"justification,omitempty"`
	ResolvedProgram string   `json:"resolved_program,omitempty"`
	Source          string   `json:"source,omitempty"`
}

// MatchedRules converts exec-policy matches into their request form.
func MatchedRules(ms []execpolicy.RuleMatch) []MatchedRule {
	out := make([]MatchedRule, 0, len(ms))
	for _, m := range ms {
		out = append(out, MatchedRule{
			MatchedPrefix:   m.MatchedPrefix,
			Decision:        m.Decision.String(),
			Justification:   m.Justification,
			ResolvedProgram: m.ResolvedProgram,
			Source:          m.Source,
		})
	}
	return out
}

// Denial is one thing the sandbox stopped, e.g. {"kind":"fs-write",
// "path":"/etc/x"}: the sandbox's own report, carried unchanged into
// requests and audit records.
type Denial = sandbox.Denial

// Request is what an approver is asked. Its JSON form is the exec
// approver's stdin and the defer approver's --result-file content.
type Request struct {
	ID string `json:"id"`
	// Argv, Cwd and Workspace hold exact bytes (see Argv): the id is a
	// hash of those bytes, and what an approver reads must be them too.
	Argv      Argv   `json:"argv"`
	Cwd       Bytes  `json:"cwd"`
	Workspace Bytes  `json:"workspace"`
	Profile   string `json:"profile"`
	// ProfileDigest is ProfileDigest of the resolved profile: the name
	// alone does not say what a profile grants (another --workspace, an
	// edited profile file), and an approval binds what it was given for.
	ProfileDigest string              `json:"profile_digest,omitempty"`
	Decision      string              `json:"decision"`
	Reasons       []execpolicy.Reason `json:"reasons"`
	Matched       []MatchedRule       `json:"matched_rules"`
	// ProposedRule is the prefix an "always" answer appends as an allow
	// rule; nil when no amendment is offered, and then "always" is not.
	ProposedRule Argv `json:"proposed_rule"`
	// ProposedHost is the host an "always" answer to a network request
	// (an escalation for a refused host, a prompt network rule) appends a
	// network_rule for; empty otherwise, and when the rule would not
	// count (no user rules file to write, or a managed allowed_profiles
	// that drops the user's allow network_rules): "always" is then not
	// offered, and answered all the same it denies.
	ProposedHost string `json:"proposed_host,omitempty"`
	Kind         Kind   `json:"kind"`
	// Denials are what the sandbox stopped, for an escalation.
	Denials []Denial `json:"denials"`
	// Escalation describes the access an escalation asks for ("write
	// /home/u/.cache/pip", "network on"); empty for KindExec.
	Escalation string `json:"escalation,omitempty"`
	// Dangerous is true when the dangerous-command floor applied; such a
	// request is never recorded as, or honoured from, a session approval.
	Dangerous bool `json:"dangerous,omitempty"`
	// Connecting says the escalation is about a connection the running
	// command is making (a prompt network rule): nothing is re-run, and
	// the terminal prompt says so. Not part of the protocol.
	Connecting bool `json:"-"`
	// ManagedDigest is the digest of the managed layer the request was
	// judged under, "" without one. An answer that outlives the run (a
	// session approval, a request id resumed later) is bound to it: the
	// ceiling a person approved under may have changed since, and what
	// it now asks about is a question nobody answered. The id binds it;
	// not part of the protocol.
	ManagedDigest string `json:"-"`
}

// Response is an approver's answer to the request with the same ID.
type Response struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
}

// RequestIDLen is the length in hex digits of a request id (128 bits).
const RequestIDLen = 32

// IDParts are what a request id binds: everything the answer applies to.
type IDParts struct {
	Argv    []string
	Cwd     string
	Profile string
	// ProfileDigest digests the profile's resolved grants (ProfileDigest).
	ProfileDigest string
	// PolicyDigest digests the rules (execpolicy.Policy.Digest).
	PolicyDigest string
	// Escalation is the requested access for KindEscalation, "" for
	// KindExec.
	Escalation string
	// ManagedDigest digests the managed layer (config.Managed.Digest),
	// "" without one: its config.toml (allowed_profiles, approval_policy,
	// allow_full_access, ...) is not in PolicyDigest, and an approval
	// given under one ceiling must not be resumed under another.
	ManagedDigest string
}

// RequestID returns the id of a request: a hash of everything the answer
// applies to, so that an approval given for one command, directory,
// profile (its name and its resolved grants), rule set, managed layer or
// escalation cannot be replayed for another.
func RequestID(p IDParts) string {
	// v3 added the managed layer's digest.
	h := newFramedHash("gatedexec-request-v3")
	h.count(len(p.Argv))
	for _, a := range p.Argv {
		h.str(a)
	}
	for _, s := range []string{p.Cwd, p.Profile, p.ProfileDigest, p.PolicyDigest, p.Escalation, p.ManagedDigest} {
		h.str(s)
	}
	return h.hex()[:RequestIDLen]
}

// ProfileDigest returns a hex digest of everything the resolved profile p
// grants and denies. Two profiles with one name differ in it when they
// resolve to other paths (another workspace) or other settings.
func ProfileDigest(p *sandbox.Profile) string {
	// Profile holds only plain exported data, so its JSON form is
	// deterministic and complete: the digest is of what json.Marshal
	// writes, HTML escaping included, as it always was.
	var data bytes.Buffer
	json.HTMLEscape(&data, appendProfile(nil, p))
	sum := sha256.Sum256(data.Bytes())
	return hex.EncodeToString(sum[:])
}

// MarshalJSON writes absent lists as [] rather than null, except
// proposed_rule, whose null means "no amendment offered".
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	p := plain(r)
	if p.Argv == nil {
		p.Argv = Argv{}
	}
	if p.Reasons == nil {
		p.Reasons = []execpolicy.Reason{}
	}
	if p.Matched == nil {
		p.Matched = []MatchedRule{}
	}
	if p.Denials == nil {
		p.Denials = []Denial{}
	}
	return json.Marshal(p)
}
