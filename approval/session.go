package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/internal/owndir"
	"github.com/gatedexec/gatedexec/internal/userdirs"
)

// ErrDangerous is returned by Session.Add for a request the
// dangerous-command floor raised: a session approval may not lower it.
var ErrDangerous = errors.New("a dangerous command cannot be approved for a session")

// ErrSessionID is wrapped by OpenSession's error for a malformed id (a
// usage error), as opposed to a store that cannot be used.
var ErrSessionID = errors.New("invalid session id")

// maxSessionID is the longest session id, in bytes.
const maxSessionID = 128

// validSessionID reports whether id is 1-128 of A-Z a-z 0-9 . _ -: one
// file name, never a path. A loop rather than a regexp: the hook checks
// every event's id, and compiling a regexp on each start cost it about
// fifty page faults.
func validSessionID(id string) bool {
	if id == "" || len(id) > maxSessionID || id == "." || id == ".." {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// DefaultSessionDir returns $XDG_STATE_HOME/gatedexec/sessions, with
// XDG_STATE_HOME defaulting to ~/.local/state and the home directory to
// the passwd entry's when HOME is not absolute. getenv is os.Getenv or a
// test's replacement. It fails rather than return a relative path.
func DefaultSessionDir(getenv func(string) string) (string, error) {
	d, err := userdirs.Resolve(getenv)
	if err != nil {
		return "", fmt.Errorf("session store: %w", err)
	}
	return d.Sessions(), nil
}

// SessionKey is what a session approval covers: the exact argv, working
// directory and profile (its name and the digest of what it grants), and
// for an escalation the access it granted, so that approving a command
// never approves escalating it, nor running it with another workspace.
// It also covers the policy the approval was given under: the managed
// layer's digest and why the command asked (Basis), so that a session
// approval never settles a prompt the managed layer, or a rule, raised
// after the person answered: that is a question they were never asked.
type SessionKey struct {
	Argv          Argv   `json:"argv"`
	Cwd           Bytes  `json:"cwd"`
	Profile       string `json:"profile"`
	ProfileDigest string `json:"profile_digest"`
	Kind          Kind   `json:"kind"`
	Escalation    string `json:"escalation,omitempty"`
	// ManagedDigest is Request.ManagedDigest: "" without a managed layer.
	ManagedDigest string `json:"managed_digest,omitempty"`
	// Basis is BasisOf the request: its decision, reasons and matched
	// rules. Not the whole rules digest: an "always" answer appends a
	// rule, and must not revoke every other approval of the session.
	Basis string `json:"basis"`
}

// KeyOf returns the session key of r.
func KeyOf(r *Request) SessionKey {
	return SessionKey{Argv: r.Argv, Cwd: r.Cwd, Profile: r.Profile, ProfileDigest: r.ProfileDigest, Kind: r.Kind, Escalation: r.Escalation,
		ManagedDigest: r.ManagedDigest, Basis: BasisOf(r)}
}

func (k SessionKey) equal(o SessionKey) bool {
	return slices.Equal(k.Argv, o.Argv) && k.Cwd == o.Cwd && k.Profile == o.Profile &&
		k.ProfileDigest == o.ProfileDigest && k.Kind == o.Kind && k.Escalation == o.Escalation &&
		k.ManagedDigest == o.ManagedDigest && k.Basis == o.Basis
}

// BasisOf returns a hex digest of why r asks: its decision, its reasons
// and the rules that matched it (pattern, decision, justification and the
// file:line:col they came from). A rule added, removed or reworded that
// bears on the command changes it; a rule about another command does not.
func BasisOf(r *Request) string {
	h := newFramedHash("gatedexec-basis-v1")
	h.str(r.Decision)
	h.count(len(r.Reasons))
	for _, re := range r.Reasons {
		h.str(string(re.Kind))
		h.str(re.Detail)
	}
	h.count(len(r.Matched))
	for _, m := range r.Matched {
		h.count(len(m.MatchedPrefix))
		for _, t := range m.MatchedPrefix {
			h.str(t)
		}
		for _, s := range []string{m.Decision, m.Justification, m.ResolvedProgram, m.Source} {
			h.str(s)
		}
	}
	return h.hex()
}

// sessionVersion is the session file format. Version 1 held argv and cwd
// as plain JSON strings, which lose invalid UTF-8 bytes; version 2 did
// not bind an approval to the policy it was given under (SessionKey).
// Their entries are not trusted (read as no approvals) and the next Add
// replaces the file.
const sessionVersion = 3

// errDamaged is wrapped by read's error when the session file exists but
// is not a session file gatedexec wrote.
var errDamaged = errors.New("damaged session file")

// sessionFile is the JSON content of a session file.
type sessionFile struct {
	Version int          `json:"version"`
	Session string       `json:"session"`
	Entries []SessionKey `json:"entries"`
}

// Session is one session's approvals, stored in dir/<id>.json. Every
// operation locks dir/<id>.lock, so that processes of one session share
// the file safely; the data file is replaced by rename, so that a reader
// never sees a torn file.
type Session struct {
	id   string
	path string
	lock string
}

// CheckSessionID returns ErrSessionID unless id is a valid session id.
func CheckSessionID(id string) error {
	if !validSessionID(id) {
		return fmt.Errorf("%w %q (want 1-128 of A-Z a-z 0-9 . _ -)", ErrSessionID, id)
	}
	return nil
}

// OpenSession returns the session id stored under dir, creating dir
// (mode 0700) as needed. Nothing is read until Has or Add.
func OpenSession(dir, id string) (*Session, error) {
	if err := CheckSessionID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	// Others able to write here could plant approvals.
	if err := owndir.Check(dir); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return &Session{id: id, path: filepath.Join(dir, id+".json"), lock: filepath.Join(dir, id+".lock")}, nil
}

// Has reports whether r was approved for this session. A dangerous
// request never is, whatever the file says.
func (s *Session) Has(r *Request) (bool, error) {
	if r.Dangerous {
		return false, nil
	}
	unlock, err := s.lockFile(unix.LOCK_SH)
	if err != nil {
		return false, err
	}
	defer unlock()
	sf, err := s.read()
	if err != nil {
		return false, err
	}
	k := KeyOf(r)
	return slices.ContainsFunc(sf.Entries, k.equal), nil
}

// Add records r as approved for this session. It refuses a dangerous
// request with ErrDangerous.
func (s *Session) Add(r *Request) error {
	if r.Dangerous {
		return ErrDangerous
	}
	unlock, err := s.lockFile(unix.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	sf, err := s.read()
	if errors.Is(err, errDamaged) {
		// It approves nothing (Has reports it); replacing it, under the
		// lock and by rename, loses no approval that could be honoured.
		sf, err = &sessionFile{Version: sessionVersion, Session: s.id}, nil
	}
	if err != nil {
		return err
	}
	k := KeyOf(r)
	if slices.ContainsFunc(sf.Entries, k.equal) {
		return nil
	}
	sf.Entries = append(sf.Entries, k)
	return s.write(sf)
}

// lockFile takes the session's lock and returns its release.
func (s *Session) lockFile(how int) (func(), error) {
	f, err := os.OpenFile(s.lock, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("session store: locking %s: %w", s.lock, err)
	}
	// Closing the file releases the lock.
	return func() { f.Close() }, nil
}

// read loads the session file; a missing file, or one of version 1 or 2,
// is an empty session. A file that is not a regular file, or does not parse,
// is an error wrapping errDamaged that names it.
func (s *Session) read() (*sessionFile, error) {
	sf := &sessionFile{Version: sessionVersion, Session: s.id}
	// O_NONBLOCK: a FIFO planted at the path must not hang the run.
	f, err := os.OpenFile(s.path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return sf, nil
	}
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("session store: %s: %w: a symbolic link (remove it to start the session afresh)", s.path, errDamaged)
	}
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("session store: %s: %w: not a regular file (remove it to start the session afresh)", s.path, errDamaged)
	}
	var ver struct {
		Version int `json:"version"`
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSessionFile+1))
	if err != nil {
		return nil, fmt.Errorf("session store: %s: %w", s.path, err)
	}
	if len(data) > maxSessionFile {
		return nil, fmt.Errorf("session store: %s: %w: larger than %d bytes", s.path, errDamaged, maxSessionFile)
	}
	if err := json.Unmarshal(data, &ver); err == nil && (ver.Version == 1 || ver.Version == 2) {
		return sf, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(sf); err != nil {
		return nil, fmt.Errorf("session store: %s: %w: %w", s.path, errDamaged, err)
	}
	if sf.Version != sessionVersion || sf.Session != s.id {
		return nil, fmt.Errorf("session store: %s: %w: not a version %d file of session %s", s.path, errDamaged, sessionVersion, s.id)
	}
	return sf, nil
}

// maxSessionFile bounds a session file: approvals are a few hundred bytes
// each, and a larger file is not one gatedexec wrote.
const maxSessionFile = 16 << 20

// write replaces the session file: a temporary file, synced, then renamed.
func (s *Session) write(sf *sessionFile) error {
	data, err := json.Marshal(sf)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), true); err != nil {
		return fmt.Errorf("session store: %w (the session's approvals are in %s; check that its directory is writable)", err, s.path)
	}
	return nil
}
