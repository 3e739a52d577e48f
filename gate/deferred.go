package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/internal/owndir"
	"github.com/gatedexec/gatedexec/sandbox"
)

// deferredEscalation is what gatedexec keeps of a deferred escalation
// until the host answers it: the plan, which cannot be known again
// without running the command unescalated to see what it is denied.
type deferredEscalation struct {
	// ExecID is the request id of the command the escalation is for.
	ExecID  string           `json:"exec_id"`
	Changes []sandbox.Change `json:"changes"`
	Denials []sandbox.Denial `json:"denials"`
}

// maxDeferredFile bounds a deferred escalation file.
const maxDeferredFile = 1 << 20

// escalationPath names the file of the deferred escalation id, or "" when
// plans are not kept or id could not be a request id (a path).
func (o *call) escalationPath(id string) string {
	if o.DeferredDir == "" || len(id) != approval.RequestIDLen || strings.Trim(id, "0123456789abcdef") != "" {
		return ""
	}
	return filepath.Join(o.DeferredDir, id+".json")
}

// saveEscalation keeps the plan of the deferred escalation id of the exec
// request execID.
func (o *call) saveEscalation(id, execID string, plan *sandbox.Escalation, denials []sandbox.Denial) error {
	path := o.escalationPath(id)
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(o.DeferredDir, 0o700); err != nil {
		return fmt.Errorf("keeping the deferred escalation: %w", err)
	}
	if err := owndir.Check(o.DeferredDir); err != nil {
		return fmt.Errorf("keeping the deferred escalation: %w", err)
	}
	b, err := json.Marshal(deferredEscalation{ExecID: execID, Changes: plan.Changes, Denials: denials})
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, false)
}

// dropEscalation forgets the deferred escalation id once it is answered.
func (o *call) dropEscalation(id string) {
	if path := o.escalationPath(id); path != "" {
		os.Remove(path)
	}
}

// resumedEscalation returns the plan of a deferred escalation of req that
// an --approve value names. It is used only when the escalation id made
// from the plan is the one named, so that what runs is exactly what the
// host approved: the id binds argv, cwd, profile, policy, managed layer
// and the access granted. Anything amiss (no file, a file someone else could write, a
// plan of another command) means no plan: the command then runs first
// unescalated, as without a kept plan.
func (o *call) resumedEscalation(req approval.Request, profile, digest string) (*sandbox.Escalation, []sandbox.Denial, bool) {
	if o.DeferredDir == "" || owndir.Check(o.DeferredDir) != nil {
		return nil, nil, false
	}
	for _, v := range o.Approve {
		id, _, _ := strings.Cut(v, ":")
		path := o.escalationPath(id)
		if path == "" || id == req.ID || len(approval.Naming(o.Deny, id)) > 0 {
			continue
		}
		d, err := readDeferred(path)
		if err != nil || d.ExecID != req.ID || len(d.Changes) == 0 {
			continue
		}
		plan := &sandbox.Escalation{Changes: d.Changes}
		if approval.RequestID(approval.IDParts{Argv: o.argv(), Cwd: o.Cwd, Profile: profile, ProfileDigest: req.ProfileDigest, PolicyDigest: digest,
			Escalation: plan.String(), ManagedDigest: req.ManagedDigest}) != id {
			continue
		}
		if d.Denials == nil {
			d.Denials = []sandbox.Denial{}
		}
		return plan, d.Denials, true
	}
	return nil, nil, false
}

// readDeferred reads a deferred escalation file, refusing anything but a
// small regular file (a FIFO must not hang the run).
func readDeferred(path string) (*deferredEscalation, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDeferredFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxDeferredFile {
		return nil, errors.New("too large")
	}
	var d deferredEscalation
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	return &d, nil
}
