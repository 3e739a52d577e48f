package auditlog

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
)

// Record is what a reader needs of one audit line (approval.Record
// writes it). Unknown fields are ignored, so logs of other versions read.
type Record struct {
	Time      time.Time      `json:"time"`
	Session   string         `json:"session,omitempty"`
	RequestID string         `json:"request_id,omitempty"`
	Kind      string         `json:"kind,omitempty"`
	Attempt   int            `json:"attempt,omitempty"`
	Argv      approval.Argv  `json:"argv"`
	Shell     bool           `json:"shell,omitempty"`
	Cwd       approval.Bytes `json:"cwd"`
	Rules     []Rule         `json:"rules_matched"`
	Decision  string         `json:"decision"`
	Reasons   []Reason       `json:"reasons,omitempty"`
	Action    string         `json:"action,omitempty"`
	Approver  string         `json:"approver,omitempty"`
	Outcome   string         `json:"outcome,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Profile   string         `json:"profile,omitempty"`
	Exit      *int           `json:"exit"`
	Denials   []Denial       `json:"denials,omitempty"`
	Error     string         `json:"error,omitempty"`
	AfterRun  bool           `json:"after_run,omitempty"`

	// AgentTerminal says the command was judged as on an agent's
	// terminal (execpolicy.EvalOptions.AgentTerminal), as rules replay
	// must judge it again.
	AgentTerminal bool `json:"agent_terminal,omitempty"`

	RulesDigest   string `json:"rules_digest,omitempty"`
	ProfileDigest string `json:"profile_digest,omitempty"`
	ManagedDigest string `json:"managed_digest,omitempty"`
	Version       string `json:"version,omitempty"`
}

// Rule is a rule that matched a recorded command.
type Rule struct {
	MatchedPrefix []string `json:"matched_prefix"`
	Decision      string   `json:"decision"`
	Source        string   `json:"source,omitempty"`
}

// Reason is why a recorded command got its decision, as the record has
// it: "unmatched" (no rule covered it), "unanalysable", "dangerous" or
// "rule".
type Reason = execpolicy.Reason

// Denial is what the sandbox refused a recorded command: a path
// (fs-read, fs-write) or a connection (net-connect; "net" with a host
// and port from the egress proxy).
type Denial struct {
	Kind string `json:"kind"`
	Path string `json:"path,omitempty"`
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
}

// Target is what was denied: the path, the host (with its port), or "".
func (d Denial) Target() string {
	switch {
	case d.Path != "":
		return d.Path
	case d.Host != "" && d.Port != 0:
		return net.JoinHostPort(d.Host, strconv.Itoa(d.Port))
	}
	return d.Host
}

// IsDecision reports whether r is the first record of a decision: a run
// adds a second one (AfterRun) with its outcome, which counting
// decisions must skip.
func (r *Record) IsDecision() bool { return !r.AfterRun }

// Command is the recorded command as one line: the script of a shell
// run, else the words joined by spaces.
func (r *Record) Command() string { return strings.Join(r.Argv, " ") }
