package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// Record is one audit log line: one decision about one command, and what
// came of it.
type Record struct {
	Time      time.Time `json:"time"`
	Session   string    `json:"session,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Kind      Kind      `json:"kind,omitempty"`
	Attempt   int       `json:"attempt,omitempty"`
	Argv      Argv      `json:"argv"`
	// Shell says Argv[0] is a script judged as run --shell judges it.
	Shell bool `json:"shell,omitempty"`
	// AgentTerminal says the command was judged as on an agent's
	// terminal (execpolicy.EvalOptions.AgentTerminal), which makes more
	// commands prompt: replay must judge it the same way.
	AgentTerminal bool          `json:"agent_terminal,omitempty"`
	Cwd           Bytes         `json:"cwd"`
	Rules         []MatchedRule `json:"rules_matched"`
	Decision      string        `json:"decision"`
	// Reasons explain a prompt or forbidden decision (execpolicy): a
	// reader must know whether no rule matched, the only prompt an allow
	// rule lowers, and the top-level Rules miss a prompt rule matching a
	// command inside a script.
	Reasons []execpolicy.Reason `json:"reasons,omitempty"`
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
	// Connection is the connection a KindConnection record is about:
	// host, port, decision, rule, bytes each way.
	Connection *egress.Record `json:"connection,omitempty"`
	// AfterRun marks the record written once the command ran (or could
	// not start): the second record of a decision already recorded, so
	// that a reader counting decisions skips it.
	AfterRun bool `json:"after_run,omitempty"`

	// Which policy decided: the rules' digest (execpolicy Policy.Digest),
	// the profile's (ProfileDigest), the managed layer's files' (empty
	// without one) and the gatedexec version that wrote the record.
	RulesDigest   string `json:"rules_digest,omitempty"`
	ProfileDigest string `json:"profile_digest,omitempty"`
	ManagedDigest string `json:"managed_digest,omitempty"`
	Version       string `json:"version,omitempty"`
}

// Log is an append-only JSON-lines audit log. A record is whole or
// absent: each is one write system call on a file opened with O_APPEND,
// under an exclusive flock that every gatedexec process takes, so records
// of concurrent processes never interleave; a write that comes up short
// (a full disk) is cut off again, and a torn tail left by a crash is cut
// back to the last whole line before the next record is appended.
type Log struct {
	f     *os.File
	fsync bool
	// mu orders this process's writers: the flock that orders
	// processes is held per open file, so two goroutines sharing f would
	// both hold it, and one's repair of a torn tail could cut the
	// other's record.
	mu sync.Mutex
}

// OpenLog opens (creating, mode 0600) the audit log at path. With fsync,
// every record is synced to disk before Write returns. A path that is not
// a regular file is refused without blocking: a FIFO with no reader would
// hang the open, one with a reader would take the records away, and
// neither is a log.
func OpenLog(path string, fsync bool) (*Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.ENXIO) {
		// O_NONBLOCK on a FIFO without a reader.
		return nil, fmt.Errorf("audit log %s: not a regular file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if err == nil {
		err = setBlocking(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	return &Log{f: f, fsync: fsync}, nil
}

// setBlocking clears O_NONBLOCK again: it was only there for the open.
func setBlocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err == nil {
			_, err = unix.FcntlInt(fd, unix.F_SETFL, flags&^unix.O_NONBLOCK)
		}
		serr = err
	}); err != nil {
		return err
	}
	return serr
}

// Write appends rec as one line. An error means the record is not in the
// log; the caller must then not run the command.
func (l *Log) Write(rec Record) error {
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	rc, err := l.f.SyscallConn()
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	var werr error
	cerr := rc.Control(func(fd uintptr) { werr = appendRecord(int(fd), line) })
	switch {
	case cerr != nil:
		return fmt.Errorf("audit log %s: %w", l.f.Name(), cerr)
	case werr != nil:
		return fmt.Errorf("audit log %s: %w", l.f.Name(), werr)
	}
	if l.fsync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit log %s: %w", l.f.Name(), err)
		}
	}
	return nil
}

// appendRecord appends line to the log fd under its exclusive lock. The
// lock makes the size read before the write the offset the write lands
// at, so a short write can be truncated away exactly.
func appendRecord(fd int, line []byte) error {
	if err := retryEINTR(func() error { return unix.Flock(fd, unix.LOCK_EX) }); err != nil {
		return fmt.Errorf("locking: %w", err)
	}
	defer unix.Flock(fd, unix.LOCK_UN)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	size, err := repairTail(fd, st.Size)
	if err != nil {
		return fmt.Errorf("repairing a torn last record: %w", err)
	}
	// os.File.Write would loop over short writes, splitting the record
	// into several appends; one raw write either appends all of it or
	// is undone.
	var n int
	werr := retryEINTR(func() (err error) { n, err = unix.Write(fd, line); return err })
	if werr == nil && n == len(line) {
		return nil
	}
	if werr == nil {
		werr = fmt.Errorf("short write (%d of %d bytes): %w", n, len(line), io.ErrShortWrite)
	}
	if terr := unix.Ftruncate(fd, size); terr != nil {
		return fmt.Errorf("%w; and cutting the partial record off again: %w", werr, terr)
	}
	return werr
}

// maxTornTail bounds how far back repairTail looks for the end of the
// last whole record: further than any record gatedexec writes.
const maxTornTail = 16 << 20

// repairTail makes the log end at a line boundary: when its last byte is
// not a newline (a record torn by a crash or by another program), the
// partial line is truncated away. It returns the new size. (OpenLog opens
// the log O_RDWR for this: a torn tail must be read to be found.)
func repairTail(fd int, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := unix.Pread(fd, last[:], size-1); err != nil {
		return size, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	buf := make([]byte, 64<<10)
	for end := size; end > 0 && size-end < maxTornTail; {
		start := max(end-int64(len(buf)), 0)
		n, err := unix.Pread(fd, buf[:end-start], start)
		if err != nil {
			return size, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut := start + int64(i) + 1
			return cut, unix.Ftruncate(fd, cut)
		}
		end = start
	}
	if size > maxTornTail {
		// No newline in the last 16 MiB: not a log gatedexec wrote.
		return size, fmt.Errorf("no line end in the last %d bytes: not a JSON-lines log", maxTornTail)
	}
	return 0, unix.Ftruncate(fd, 0)
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// Close closes the log.
func (l *Log) Close() error {
	if l == nil || l.f == nil {
		return errors.New("audit log: not open")
	}
	return l.f.Close()
}
