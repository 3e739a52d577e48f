package gate

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/profiles"
	"github.com/gatedexec/gatedexec/sandbox"
)

// state is one reading of the configuration: what Check needs, read at
// once, and what only Run needs (the approver, the audit log), built on
// the first Run so that check neither opens an audit log nor fails on an
// approver it would not use.
type state struct {
	layers     *config.Config
	configFile setting
	policy     *execpolicy.Policy
	// policyDigest is policy's digest, hashed on the first Run that
	// needs it: every run of a long-lived front end binds it (audit
	// records, request ids), and check needs it not at all.
	policyDigest   func() string
	approval       approval.Policy
	profiles       *profiles.Loader
	defaultProfile setting
	// ceiling is the managed layer's; refused is what it refused of the
	// lower layers, the environment and the flags.
	ceiling ceiling
	refused []string
	// approver is the approver's spec, under the managed pin if any.
	approver setting
	// sources are the files and directories this state was read from,
	// and print their fingerprint then, "" when it was not taken (a
	// Gate that does not watch its files; see load).
	sources []string
	print   string

	// runMu guards run, built by the first Run that succeeds in it: a
	// failure (an audit log on a full disk) is tried again next time.
	runMu sync.Mutex
	run   *runParts
}

// runParts are what a Run needs beyond a Check.
type runParts struct {
	approverSpec setting
	approver     approval.Approver
	approverID   string
	timeout      time.Duration // an exec approver's
	session      setting
	audit        *approval.Log
	auditPath    string
	// auditCopy is the log asked for below a managed layer, written
	// beside the managed one (audit): a lower layer may add a log, not
	// switch the managed one off.
	auditCopy     *approval.Log
	auditCopyPath string
}

// load reads the configuration the Gate's Config names. withPrint takes
// the fingerprint of what it read, which only Refresh compares: a
// one-shot Gate does not pay its stat calls.
func (g *Gate) load(withPrint bool) (*state, error) {
	c := &g.cfg
	st := &state{configFile: flagOrEnv(g.getenv, "--config", c.Flags.ConfigFile, "GATEDEXEC_CONFIG")}
	var err error
	if st.layers, err = loadLayers(g.getenv, c.Workspace, st.configFile); err != nil {
		return nil, err
	}
	s := st.layers.Settings
	st.ceiling = ceiling{st.layers.Managed}
	st.refused = slices.Clone(st.layers.Refused)
	ap := pick(g.getenv, c.Flags.ApprovalPolicy, s, config.KeyApprovalPolicy, string(approval.DefaultPolicy))
	if st.approval, err = approval.ParsePolicy(ap.value); err != nil {
		return nil, ap.errorf(err)
	}
	var why string
	if st.approval, why = st.ceiling.approval(st.approval, ap); why != "" {
		st.refused = append(st.refused, why)
	}
	if err := st.ceiling.checkApprover(); err != nil {
		return nil, err
	}
	def := "deny"
	if c.Interactive && !c.AgentTerminal {
		def = "tty"
	}
	if st.approver, why = st.ceiling.approver(pick(g.getenv, c.Flags.Approver, s, config.KeyApprover, def)); why != "" {
		st.refused = append(st.refused, why)
	}
	if st.approver.value == "tty" && c.AgentTerminal {
		// Whoever answers at this terminal is the model.
		st.approver.value = "deny"
	}
	build := cacheBuild(g.getenv, st.layers.Dirs, c.Version)
	if st.policy, err = loadPolicy(g.getenv, st.layers, build, c.Rules, &st.refused); err != nil {
		return nil, err
	}
	st.policyDigest = sync.OnceValue(st.policy.Digest)
	st.profiles = profileLoader(g.getenv, Place{Cwd: c.Workspace, Workspace: c.Workspace}, st.layers, build)
	if err := CheckRuleProfiles(st.policy, st.profiles); err != nil {
		return nil, err
	}
	st.defaultProfile = pick(g.getenv, c.Flags.Profile, s, config.KeyProfile, profiles.DefaultProfile)
	st.sources = sourcesOf(st.layers, append(slices.Clip(c.Rules), st.configFile.value, profileFile(st.defaultProfile.value)))
	if withPrint {
		st.print = fingerprint(st.sources)
	}
	return st, nil
}

// runParts builds, once per state, what only Run needs.
func (st *state) runParts(g *Gate) (*runParts, error) {
	st.runMu.Lock()
	defer st.runMu.Unlock()
	if st.run == nil {
		rp, err := st.buildRun(g)
		if err != nil {
			return nil, err
		}
		st.run = rp
	}
	return st.run, nil
}

func (st *state) buildRun(g *Gate) (*runParts, error) {
	c, s := &g.cfg, st.layers.Settings
	rp := &runParts{session: flagOrEnv(g.getenv, "--session", c.Flags.Session, "GATEDEXEC_SESSION")}
	rp.approverSpec = st.approver
	at := pick(g.getenv, c.Flags.ApproverTimeout, s, config.KeyApproverTimeout, approval.DefaultExecTimeout.String())
	var err error
	if rp.timeout, err = config.ParseTimeout(at.value); err != nil {
		return nil, at.errorf(err)
	}
	rp.approver, err = approval.ParseApprover(rp.approverSpec.value, approval.Options{
		ExecStderr: c.Stderr, Status: c.Stderr, ExecTimeout: rp.timeout, Session: rp.session.value != "",
		NoTerminal: c.AgentTerminal,
	})
	if err != nil {
		return nil, rp.approverSpec.errorf(err)
	}
	rp.approverID = approverName(rp.approverSpec.value)
	if rp.session.value != "" {
		if _, err := openSession(st.layers.Dirs, rp.session); err != nil {
			return nil, err
		}
	}
	audit := pick(g.getenv, c.Flags.AuditLog, s, config.KeyAuditLog, "")
	fsync := s.AuditFsync != nil && *s.AuditFsync
	if m := st.ceiling.m; m != nil && m.AuditLog != audit.value {
		if audit.value != "" {
			rp.auditCopyPath = audit.value
			if rp.auditCopy, err = g.openLog(audit.value, fsync); err != nil {
				return nil, fmt.Errorf("%s: %w", audit.from, err)
			}
		}
		audit = setting{m.AuditLog, m.Where(config.KeyAuditLog), nil}
	}
	if m := st.ceiling.m; m != nil && m.AuditFsync {
		// A lower layer's audit_fsync = false must not put the managed
		// log's records at the mercy of a crash.
		fsync = true
	}
	rp.auditPath = audit.value
	if rp.auditPath != "" {
		if rp.audit, err = g.openLog(rp.auditPath, fsync); err != nil {
			// The path may be right and the disk full: gatedexec's
			// failure, not the caller's.
			return nil, fmt.Errorf("%s: %w", audit.from, err)
		}
	}
	return rp, nil
}

// openSession opens the session store of the session id st.
func openSession(d config.Dirs, st setting) (*approval.Session, error) {
	s, err := approval.OpenSession(d.Sessions(), st.value)
	switch {
	case errors.Is(err, approval.ErrSessionID):
		return nil, st.errorf(err)
	case err != nil:
		// The id is fine; the store cannot be used (a read-only home):
		// gatedexec's failure, not the caller's.
		return nil, fmt.Errorf("%s: %w", st.from, err)
	}
	return s, nil
}

// openLog opens the audit log at path once per Gate: a reload that
// keeps the path keeps the file.
func (g *Gate) openLog(path string, fsync bool) (*approval.Log, error) {
	key := fmt.Sprintf("%t:%s", fsync, path)
	g.logsMu.Lock()
	defer g.logsMu.Unlock()
	if l, ok := g.logs[key]; ok {
		return l, nil
	}
	l, err := approval.OpenLog(path, fsync)
	if err != nil {
		return nil, err
	}
	g.logs[key] = l
	return l, nil
}

// call builds the gated run of req under this state.
func (st *state) call(g *Gate, req Request) (*call, error) {
	pl, err := g.place(req)
	if err != nil {
		return nil, err
	}
	rp, err := st.runParts(g)
	if err != nil {
		return nil, err
	}
	approver, approverID := rp.approver, rp.approverID
	pinned := st.ceiling.pinsApprover()
	if req.Approver != nil && !pinned {
		approver, approverID = req.Approver, req.ApproverID
	}
	if pinned && st.approver.value != "defer" {
		// An --approve value is the defer approver's answer, and the
		// managed layer pinned another: only a refusal may stand.
		req.Approve = nil
	}
	preapproved := preapprovedDir(st)
	if pinned {
		// Nobody but the pinned approver answers: what the agent's own
		// prompt registered approves nothing.
		preapproved = ""
	}
	if ea, ok := approver.(*approval.ExecApprover); ok && req.Timeout > 0 && req.Timeout < rp.timeout {
		// A caller's budget for the run bounds the wait for an answer too.
		cp := *ea
		cp.Timeout = req.Timeout
		approver = &cp
	}
	def := st.defaultProfile
	req.Cwd, req.Workspace = pl.Cwd, pl.Workspace
	amend := userRulesFile(st.layers.Dirs)
	if !st.layers.AllowsUserRules() {
		// An "always" rule the ceiling ignores would keep asking.
		amend = ""
	}
	o := &call{
		Request: req,
		Policy:  st.policy, PolicyDigest: st.policyDigest, EvalOpts: g.evalOptions(req),
		Approval: st.approval, Approver: serialApprover{&g.ask, approver}, ApproverID: approverID,
		AmendFile:      amend,
		DeferredDir:    st.layers.Dirs.Deferred(),
		PreapprovedDir: preapproved,
		Profile:        st.profileFunc(pl),
		DefaultProfile: def.value,
		ProfileCache:   sandbox.BuildCache{Dir: st.profiles.CacheDir, Build: st.profiles.CacheBuild},
		Runner:         g.runner,
		Audit:          rp.audit,
		AuditCopy:      rp.auditCopy,
		Ceiling:        st.ceiling,
		Version:        g.cfg.Version,
	}
	if g.cfg.AgentTerminal {
		o.SetEnv = agentTerminalEnv
	}
	session := rp.session
	if req.Session != "" {
		session = setting{req.Session, "session", ErrUsage}
	}
	if session.value != "" {
		o.SessionID = session.value
		if o.Session, err = openSession(st.layers.Dirs, session); err != nil {
			return nil, err
		}
	}
	// Every file gatedexec reads or writes for a run: a command that could
	// change one would decide how its next run is judged or sandboxed.
	own := append(slices.Clip(g.cfg.Rules), rp.auditPath, rp.auditCopyPath, profileFile(def.value), st.configFile.value, existing(req.ResultFile))
	if o.Control, o.ScanCache, err = controlPaths(g.getenv, st.layers.Dirs, append(own, approverFiles(rp.approver)...)...); err != nil {
		return nil, err
	}
	return o, nil
}

// profileFunc resolves profiles for a request at pl, as run does.
func (st *state) profileFunc(pl Place) func(string) (*sandbox.Profile, error) {
	loader := *st.profiles
	loader.Vars.Cwd = pl.Cwd
	def := st.defaultProfile
	return func(name string) (*sandbox.Profile, error) {
		p, err := loader.Resolve(name)
		if err != nil && name == def.value {
			// Always ErrConfig, a flag too: it names a profile
			// file or layer that is wrong.
			err = fmt.Errorf("%s: %w", def.from, err)
		}
		return p, err
	}
}

// approverName is the approver's name as results record it.
func approverName(spec string) string {
	if len(spec) >= 5 && spec[:5] == "exec:" {
		return "exec"
	}
	return spec
}
