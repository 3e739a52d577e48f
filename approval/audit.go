package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Record is one audit log line: one decision about one command, and what
// came of it.
type Record struct {
	Time      time.Time     `json:"time"`
	Session   string        `json:"session,omitempty"`
	RequestID string        `json:"request_id,omitempty"`
	Kind      Kind          `json:"kind,omitempty"`
	Attempt   int           `json:"attempt,omitempty"`
	Argv      Argv          `json:"argv"`
	Cwd       Bytes         `json:"cwd"`
	Rules     []MatchedRule `json:"rules_matched"`
	Decision  string        `json:"decision"`
	// Action is what the approval policy made of the decision.
	Action   string  `json:"action,omitempty"`
	Approver string  `json:"approver,omitempty"`
	Outcome  Outcome `json:"outcome,omitempty"`
	// Reason is the approver's or the policy's reason for the outcome
	// ("mismatched approval id", "answered deny at the terminal").
	Reason string `json:"reason,omitempty"`
	// Escalation is the access an escalation asked for, as it was shown
	// to the approver; empty for KindExec.
	Escalation string   `json:"escalation,omitempty"`
	Profile    string   `json:"profile,omitempty"`
	Layers     []string `json:"layers,omitempty"`
	// Exit is the command's exit status; nil when it did not run.
	Exit       *int     `json:"exit"`
	DurationMS int64    `json:"duration_ms"`
	Denials    []Denial `json:"denials,omitempty"`
	// Tampered lists the git control files the command created or
	// changed in the workspace (sandbox.GitTamper).
	Tampered []string `json:"tampered,omitempty"`
	// Error says why gatedexec failed, when it did.
	Error string `json:"error,omitempty"`
}

// MarshalJSON writes Time as RFC 3339 with nanoseconds, in UTC.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	return json.Marshal(struct {
		Time string `json:"time"`
		plain
	}{r.Time.UTC().Format(time.RFC3339Nano), plain(r)})
}

// Log is an append-only JSON-lines audit log. Each record is one write
// system call on a file opened with O_APPEND, so that the records of
// concurrent gatedexec processes never interleave.
type Log struct {
	f     *os.File
	fsync bool
}

// OpenLog opens (creating, mode 0600) the audit log at path. With fsync,
// every record is synced to disk before Write returns.
func OpenLog(path string, fsync bool) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &Log{f: f, fsync: fsync}, nil
}

// Write appends rec as one line. An error means the record may not be in
// the log; the caller must then not run the command.
func (l *Log) Write(rec Record) error {
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	line = append(line, '\n')
	rc, err := l.f.SyscallConn()
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	var n int
	var werr error
	// os.File.Write would loop over short writes, splitting the record
	// into several appends that others could interleave with; one raw
	// write either appends all of it or is reported.
	cerr := rc.Write(func(fd uintptr) bool {
		for {
			n, werr = unix.Write(int(fd), line)
			if werr != unix.EINTR {
				return true
			}
		}
	})
	switch {
	case cerr != nil:
		return fmt.Errorf("audit log %s: %w", l.f.Name(), cerr)
	case werr != nil:
		return fmt.Errorf("audit log %s: %w", l.f.Name(), werr)
	case n != len(line):
		return fmt.Errorf("audit log %s: short write (%d of %d bytes): %w", l.f.Name(), n, len(line), io.ErrShortWrite)
	}
	if l.fsync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit log %s: %w", l.f.Name(), err)
		}
	}
	return nil
}

// Close closes the log.
func (l *Log) Close() error {
	if l == nil || l.f == nil {
		return errors.New("audit log: not open")
	}
	return l.f.Close()
}
