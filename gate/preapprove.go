package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/internal/owndir"
)

// PreapprovalTTL is how long a registered request stays claimable: an
// agent's prompt is answered within a turn, and a registration nobody
// claims (the person said no) must not wait for a run for ever.
const PreapprovalTTL = time.Hour

// maxPreapprovalFile bounds a registration file.
const maxPreapprovalFile = 4 << 10

// Registration is what Register made of a request: its Check and, when
// the approval policy would ask, the id of the approval request that Run
// will make for the same request, registered as approved in advance.
type Registration struct {
	*CheckResult
	// RequestID is the registered request id; "" when nothing was
	// registered (the policy runs or denies the request without asking).
	RequestID string `json:"request_id,omitempty"`
}

// preapproval is one registration on disk.
type preapproval struct {
	ID      string    `json:"id"`
	Session string    `json:"session"`
	Expires time.Time `json:"expires"`
}

// Register judges req as Check does and, when the approval policy would
// ask, registers the request id Run will compute for it (a hash of argv,
// cwd, profile, profile digest, rules digest and managed digest) for req's session. The
// one Run of the same request in that session that comes first, within
// PreapprovalTTL, then settles as approved (by "hook") instead of asking
// again: the caller — an agent hook answering "ask" — has put the question
// to the person at the agent's own prompt, and the agent runs the command
// only when they agree. Nothing the command's author writes can approve:
// the registration lives in gatedexec's state directory, which no
// sandboxed command may write, and a claim removes it.
//
// req.Session is required; an invalid one is ErrUsage.
func (g *Gate) Register(_ context.Context, req Request) (*Registration, error) {
	st, reg, err := g.registration(req)
	if err != nil || reg.RequestID == "" {
		return reg, err
	}
	id := reg.RequestID
	dir := preapprovedDir(st)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("registering request %s: %w", id, err)
	}
	if err := owndir.Check(dir); err != nil {
		return nil, fmt.Errorf("registering request %s: %w", id, err)
	}
	b, err := json.Marshal(preapproval{ID: id, Session: req.Session, Expires: time.Now().Add(PreapprovalTTL)})
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(preapprovalPath(dir, id, req.Session), b, false); err != nil {
		return nil, fmt.Errorf("registering request %s: %w", id, err)
	}
	return reg, nil
}

// Unregister judges req as Register does and, when the approval policy
// would ask, removes a registration of its request id for req's session,
// returning the id it removed (or found none of) in RequestID. A caller
// answering "ask" without putting the question to the person (a mode of
// the agent that skips or refuses its prompts) calls it: a registration
// left from an earlier question about the same request, which the person
// refused, would otherwise approve the run that follows, asked of nobody.
//
// req.Session is required; an invalid one is ErrUsage.
func (g *Gate) Unregister(_ context.Context, req Request) (*Registration, error) {
	st, reg, err := g.registration(req)
	if err != nil || reg.RequestID == "" {
		return reg, err
	}
	path := preapprovalPath(preapprovedDir(st), reg.RequestID, req.Session)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("removing the registration of request %s: %w", reg.RequestID, err)
	}
	return reg, nil
}

// registration judges req as Check does and, when the approval policy
// would ask, names in RequestID the request id Run will compute for it.
func (g *Gate) registration(req Request) (*state, *Registration, error) {
	st, err := g.current()
	if err != nil {
		return nil, nil, err
	}
	if req.Session == "" {
		return nil, nil, usageErr(errors.New("registering a request needs a session id"))
	}
	if _, err := openSession(st.layers.Dirs, setting{req.Session, "session", ErrUsage}); err != nil {
		return nil, nil, err
	}
	pl, err := g.place(req)
	if err != nil {
		return nil, nil, err
	}
	req.Cwd, req.Workspace = pl.Cwd, pl.Workspace
	// The ceiling too: the id binds the managed layer's digest.
	o := &call{Request: req, Policy: st.policy, PolicyDigest: st.policyDigest, EvalOpts: g.evalOptions(req), DefaultProfile: st.defaultProfile.value, Profile: st.profileFunc(pl), Ceiling: st.ceiling}
	ev := o.Policy.Evaluate(o.Argv, o.EvalOpts)
	reg := &Registration{CheckResult: checkResultOf(ev, st.approval)}
	if reg.Action != approval.Ask || st.ceiling.pinsApprover() {
		// Under a pinned approver the agent's prompt answers nothing:
		// the run asks the approver the managed layer chose.
		return st, reg, nil
	}
	// The id as run computes it: the profile the decision picked,
	// resolved for this cwd, its digest before a timeout is applied.
	name := o.DefaultProfile
	if ev.Profile != "" {
		name = ev.Profile
	}
	prof, err := o.Profile(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	reg.RequestID = o.request(ev, prof.Name, approval.ProfileDigest(prof), o.PolicyDigest()).ID
	return st, reg, nil
}

// preapprovedDir is where Register keeps registrations: under the state
// directory, which every sandboxed command sees read-only (controlPaths).
func preapprovedDir(st *state) string {
	return filepath.Join(st.layers.Dirs.State, "preapproved")
}

// preapprovalPath names the registration of request id for session: one
// per session, so that two sessions asking about the same command do not
// replace each other's. A session id is one file name (CheckSessionID).
func preapprovalPath(dir, id, session string) string {
	return filepath.Join(dir, id+"-"+session+".json")
}

// claimPreapproved reports whether the request id was registered for
// this run's session and is still valid, and removes the registration:
// only the run that removed it is approved, so a registration approves
// one run. Anything amiss — no session, a directory others could write,
// a file that is not a small regular file, another session, an expired
// registration, a removal that fails (a sandboxed gatedexec, whose state
// directory is read-only) — approves nothing.
func (o *call) claimPreapproved(id string) bool {
	if o.PreapprovedDir == "" || o.SessionID == "" || len(id) != approval.RequestIDLen || owndir.Check(o.PreapprovedDir) != nil {
		return false
	}
	path := preapprovalPath(o.PreapprovedDir, id, o.SessionID)
	p, err := readPreapproval(path)
	if err != nil {
		return false
	}
	if time.Now().After(p.Expires) {
		os.Remove(path)
		return false
	}
	if p.ID != id || p.Session != o.SessionID {
		return false
	}
	return os.Remove(path) == nil
}

// readPreapproval reads a registration file, refusing anything but a
// small regular file (a FIFO must not hang the run).
func readPreapproval(path string) (*preapproval, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPreapprovalFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxPreapprovalFile {
		return nil, errors.New("too large")
	}
	var p preapproval
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
