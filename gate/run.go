package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/sandbox"
)

// call is one gated run with everything it needs resolved: the Gate
// builds one per Request from its configuration. The package reads no
// environment and no files of its own here.
type call struct {
	// Request is the command; its Cwd and Workspace are resolved.
	Request

	// SetEnv is the environment the command gets after env_deny
	// (sandbox.Command.SetEnv): agentTerminalEnv on an agent's terminal.
	SetEnv []string

	Policy *execpolicy.Policy
	// PolicyDigest returns Policy's digest.
	PolicyDigest func() string
	EvalOpts     execpolicy.EvalOptions
	Approval     approval.Policy
	Approver     approval.Approver
	ApproverID   string // "tty", "exec", "deny", "defer": recorded in results
	// Session, when non-nil, holds the session approvals.
	Session *approval.Session
	// AmendFile is the rules file an "always" answer appends to.
	AmendFile string
	// DeferredDir, when set, holds the plans of deferred escalations, so
	// that a host resuming one by its id gets the escalated run at once
	// instead of a first, unescalated run of the command again.
	DeferredDir string
	// PreapprovedDir holds the requests Register registered (see
	// claimPreapproved).
	PreapprovedDir string

	// Profile resolves a profile name or file; DefaultProfile is used when
	// no allow rule names one.
	Profile        func(name string) (*sandbox.Profile, error)
	DefaultProfile string
	// ProfileCache is where Profile keeps what it parsed: a Runner that
	// can begin a run before its profile is read (sandbox.EarlyStarter)
	// keeps there what the last run of a profile needed. Zero: none.
	ProfileCache sandbox.BuildCache
	// Control lists gatedexec's own files and directories (rules, state,
	// cache, audit log): the command may not write them even where its
	// profile makes a parent writable (sandbox.WithControl).
	Control []string
	// ScanCache is where the workspace scan keeps what it read between
	// runs (sandbox.Profile.ScanCache), one of Control.
	ScanCache string
	Runner    sandbox.Runner

	// Audit, when non-nil, receives one record per decision; a failed write
	// stops the run before the command starts. AuditCopy, when non-nil,
	// receives them too (a log asked for below a managed one).
	Audit     *approval.Log
	AuditCopy *approval.Log
	SessionID string
	// Ceiling is the managed layer's; Version is gatedexec's, recorded.
	Ceiling ceiling
	Version string

	// net is what the network proxy of the run asks of the call.
	net sandbox.NetHooks
	// plain is the words of a --shell script the runner may execute
	// without bash (plainWords).
	plain []string
}

// Result is the outcome of a gated run, in the JSON shape of DESIGN §2.
type Result struct {
	Decision string         `json:"decision"`
	Approval ApprovalResult `json:"approval"`
	Profile  string         `json:"profile"`
	Layers   []string       `json:"layers"`
	// ExitCode is the command's exit status; nil (null) when it did not run.
	ExitCode *int `json:"exit_code"`
	Signal   *int `json:"signal"`
	// TimedOut is true when the timeout (--timeout or the profile's)
	// killed the command; its signal is then SIGKILL's or SIGTERM's.
	TimedOut   bool                `json:"timed_out,omitempty"`
	DurationMS int64               `json:"duration_ms"`
	Denials    []sandbox.Denial    `json:"denials"`
	Escalated  bool                `json:"escalated"`
	RequestID  string              `json:"request_id"`
	Reasons    []execpolicy.Reason `json:"reasons,omitempty"`
	Missing    []string            `json:"missing_layers,omitempty"`
	// Tampered lists the git control files in the workspace the command
	// created or changed, which the host's next git would execute.
	Tampered []string `json:"tampered,omitempty"`
	// Error says what gatedexec could not do, when it failed after the
	// decision (exit 78 or 125).
	Error string `json:"error,omitempty"`
	// Request is the pending request when the approval was deferred.
	Request *approval.Request `json:"request,omitempty"`

	// Action is what the approval policy made of the decision ("run",
	// "ask", "deny"), as Check reports it; the result file does not carry
	// it (DESIGN §2 fixes its shape), the audit record does.
	Action approval.Action `json:"-"`
	// Ran is true when the command was started.
	Ran bool `json:"-"`
}

// ApprovalResult says who settled the decision and how.
type ApprovalResult = approval.Settlement

// run judges o.Argv, settles the approval, and runs the command in its
// profile. The returned Result is non-nil whenever a decision was made; the
// error is non-nil only when gatedexec itself failed (wrapping ErrConfig,
// ErrAudit, sandbox.ErrLayerUnavailable, sandbox.ErrNotFound or
// sandbox.ErrCannotExec).
func (o *call) run(ctx context.Context) (*Result, error) {
	ev := o.Policy.Evaluate(o.Argv, o.EvalOpts)
	o.plain = plainWords(o.Shell, o.Argv, ev)
	res := &Result{Decision: ev.Decision.String(), Reasons: ev.Reasons, Layers: []string{}, Denials: []sandbox.Denial{}}

	name := o.DefaultProfile
	if ev.Profile != "" {
		name = ev.Profile
	}
	// One record for the decision, filled in as the run goes: a run that
	// stops early (a bad profile) is audited too. Every other record of
	// the run is a copy of it, so they all say how the command was judged
	// (Shell, AgentTerminal), as replay must judge it again.
	digest := o.PolicyDigest()
	rec := approval.Record{
		Time: time.Now(), Session: o.SessionID, Kind: approval.KindExec, Attempt: 1,
		Argv: o.Argv, Shell: o.Shell, AgentTerminal: o.EvalOpts.AgentTerminal, Cwd: approval.Bytes(o.Cwd), Rules: approval.MatchedRules(ev.Matched), Decision: res.Decision, Reasons: ev.Reasons, Profile: name,
		RulesDigest: digest, ManagedDigest: o.Ceiling.digest(), Version: o.Version,
	}
	action := o.Approval.Action(ev)
	if action == approval.Run {
		// A command that runs with no one asked: its run begins before
		// its profile is read (gatedexec sandbox does the same).
		defer startEarly(o.Runner, &sandbox.Command{Argv: o.argv(), Dir: o.Cwd, Env: o.Env, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr},
			earlyID(name, Place{Cwd: o.Cwd, Workspace: o.Workspace}), o.ProfileCache)()
	}
	prof, err := o.Profile(name)
	if err != nil {
		err = fmt.Errorf("%w: %w", ErrConfig, err)
		rec.Error = err.Error()
		return nil, errors.Join(err, o.audit(rec))
	}
	// The digest binds what the profile grants, before --timeout (a host
	// resuming a deferred request may pass what is left of its budget)
	// and before gatedexec's own files are carved out of it (they depend
	// on the approver and the audit log chosen, and only take access away).
	rec.ProfileDigest = approval.ProfileDigest(prof)
	prof.Limits.Timeout = o.Request.timeout(prof.Limits.Timeout)
	prof = withNetworkRules(prof, o.Policy.NetworkRules())
	prof = sandbox.WithScanCache(sandbox.WithControl(prof, o.Control), o.ScanCache)
	res.Profile = prof.Name
	if err := prof.ControlConflict(); err != nil {
		err = fmt.Errorf("%w: profile %s: %w", ErrConfig, prof.Name, err)
		rec.Error = err.Error()
		return res, errors.Join(err, o.audit(rec))
	}

	req := o.request(ev, prof.Name, rec.ProfileDigest, digest)
	res.RequestID = req.ID
	rec.RequestID, rec.Kind, rec.Profile = req.ID, req.Kind, prof.Name

	rec.Action = string(action)
	res.Action = action
	if why := o.Ceiling.refusesProfile(name, prof); why != "" && action != approval.Deny {
		// Refused before anyone is asked: no answer could run it.
		res.Action, res.Approval = approval.Deny, ApprovalResult{By: "managed", Outcome: approval.Denied, Reason: why}
		rec.Action, rec.Approver, rec.Outcome, rec.Reason = string(approval.Deny), "managed", approval.Denied, why
		return res, o.audit(rec)
	}
	if o.Refuse != nil && action != approval.Deny {
		if why := o.Refuse(checkResultOf(ev, o.Approval)); why != "" {
			res.Action, res.Approval = approval.Deny, ApprovalResult{By: "policy", Outcome: approval.Denied, Reason: why}
			rec.Action, rec.Approver, rec.Outcome, rec.Reason = string(approval.Deny), "policy", approval.Denied, why
			return res, o.audit(rec)
		}
	}
	if action == approval.Ask && len(approval.Naming(o.Deny, req.ID)) == 0 && o.claimPreapproved(req.ID) {
		// The person approved at the agent's prompt that Register
		// answered "ask" for (see Gate.Register).
		res.Approval = ApprovalResult{By: "hook", Outcome: approval.Approved, Reason: "approved at the agent's prompt"}
	} else {
		res.Approval, err = o.settle(ctx, action, ev, &req, o.Approve, o.Deny)
	}
	if err != nil {
		return nil, o.unsettled(rec, res.Approval, err)
	}
	if action == approval.Deny && ev.Decision == execpolicy.Forbidden && len(ev.Reasons) > 0 {
		res.Approval.By, res.Approval.Reason = "rule", ev.Reasons[0].Detail
	}
	rec.Approver, rec.Outcome, rec.Reason = res.Approval.By, res.Approval.Outcome, res.Approval.Reason
	if !res.Approval.Outcome.Approves() {
		if res.Approval.Outcome == approval.Deferred {
			res.Request = &req
		}
		return res, o.audit(rec)
	}
	// The decision is recorded before the command runs, so a command never
	// runs unaudited; the outcome is a second record.
	if err := o.audit(rec); err != nil {
		return nil, err
	}

	o.net = o.netHooks(ev, req, rec)
	// A host resuming a deferred escalation by its id gets the escalated
	// run at once: running the command unescalated first would run it
	// once more than the host asked for.
	if plan, denials, ok := o.resumedEscalation(req, prof.Name, digest); ok && o.Approval.Escalates() {
		return o.escalate(ctx, ev, req, rec, res, prof, plan, denials, digest)
	}

	runErr := o.execute(ctx, prof, &rec, res)
	// A command that succeeded is not run again, whatever it was denied
	// on the way (a refused host it did without).
	if runErr != nil || len(res.Denials) == 0 || !o.Approval.Escalates() || res.ExitCode != nil && *res.ExitCode == 0 {
		return res, runErr
	}

	// The sandbox stopped the command: ask for the narrowest access that
	// would fix what it denied, and re-run once with it.
	plan, ok := sandbox.Plan(prof, res.Denials)
	if !ok {
		return res, nil
	}
	return o.escalate(ctx, ev, req, rec, res, prof, plan, res.Denials, digest)
}

// escalate asks for the escalation plan of the exec request req, whose
// run under prof was denied denials, and re-runs the command with it once
// approved. rec is the exec request's record.
func (o *call) escalate(ctx context.Context, ev execpolicy.Evaluation, req approval.Request, rec approval.Record, res *Result,
	prof *sandbox.Profile, plan *sandbox.Escalation, denials []sandbox.Denial, digest string) (*Result, error) {
	ereq := req
	ereq.Kind = approval.KindEscalation
	ereq.Escalation = plan.String()
	ereq.Denials = denials
	ereq.ProposedRule = nil
	if len(plan.Changes) == 1 && plan.Changes[0].Kind == sandbox.GrantHost {
		// One host: "always" makes it a network_rule of the user's rules.
		ereq.ProposedHost = o.proposedHost(plan.Changes[0].Host)
	}
	ereq.ID = approval.RequestID(approval.IDParts{Argv: o.argv(), Cwd: o.Cwd, Profile: prof.Name, ProfileDigest: req.ProfileDigest, PolicyDigest: digest,
		Escalation: ereq.Escalation, ManagedDigest: req.ManagedDigest})
	erec := rec
	erec.RequestID, erec.Kind, erec.Attempt, erec.Exit, erec.Error, erec.AfterRun = ereq.ID, ereq.Kind, 2, nil, "", false
	erec.Escalation = ereq.Escalation
	erec.Denials = denials
	if why := o.Ceiling.refusesEscalation(prof.Name, plan.Apply(prof)); why != "" {
		// Refused before anyone is asked, as a profile is; the first
		// run's result, denials and all, stands.
		erec.Action, erec.Approver, erec.Outcome, erec.Reason = string(approval.Deny), "managed", approval.Denied, why
		o.dropEscalation(ereq.ID)
		return res, o.audit(erec)
	}
	// --approve/--deny values given for the exec request must not deny the
	// escalation, whose id the host could not know yet: only values naming
	// the escalation's id resume it, otherwise the approver is asked (and
	// a defer approver hands the escalation request back to the host).
	ans, err := o.settle(ctx, approval.Ask, ev, &ereq, approval.Naming(o.Approve, ereq.ID), approval.Naming(o.Deny, ereq.ID))
	if err != nil {
		return res, o.unsettled(erec, ans, err)
	}
	erec.Approver, erec.Outcome, erec.Reason = ans.By, ans.Outcome, ans.Reason
	if !ans.Outcome.Approves() {
		// The result says what became of the escalation, not of the
		// first request: an abort ends the host's turn, and a deferral
		// is resumed by the escalation's id.
		if ans.Outcome == approval.Deferred {
			res.Request = &ereq
			if err := o.saveEscalation(ereq.ID, req.ID, plan, denials); err != nil {
				// The host can still resume: the command then runs
				// unescalated first, as before the plan was kept.
				res.Error = err.Error()
			}
		} else {
			o.dropEscalation(ereq.ID)
		}
		res.Approval, res.RequestID = ans, ereq.ID
		return res, o.audit(erec)
	}
	if err := o.audit(erec); err != nil {
		return res, err
	}
	o.dropEscalation(ereq.ID)
	res.Escalated, res.RequestID, res.Approval = true, ereq.ID, ans
	res.Layers, res.Denials, res.Signal = []string{}, []sandbox.Denial{}, nil
	return res, o.execute(ctx, plan.Apply(prof), &erec, res)
}

// execute runs the command in prof, fills res from what happened and
// audits the outcome in rec.
func (o *call) execute(ctx context.Context, prof *sandbox.Profile, rec *approval.Record, res *Result) error {
	// ctx ends the command too (a library caller giving up on it); the
	// CLI's signals end only a pending approval (Request.ApprovalContext),
	// since the runner passes them on to the command, and a cancellation
	// on the same signal would also kill it with SIGTERM, racing its own
	// handler (a trap that exits 7 came out as 143).
	run, runErr := o.Runner.Run(ctx, &sandbox.Command{
		Argv: o.argv(), Plain: o.plain, Dir: o.Cwd, Env: o.Env, SetEnv: o.SetEnv,
		Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, Profile: prof, Net: o.net,
		ForwardSignals: o.ForwardSignals, Signals: o.Signals,
	})
	if run != nil {
		res.Ran = true
		exit := run.ExitCode
		res.ExitCode = &exit
		res.TimedOut = run.TimedOut
		if run.Signal != 0 {
			sig := run.Signal
			res.Signal = &sig
		}
		res.Layers = append(res.Layers, run.Layers...)
		res.Missing = run.Missing
		res.Tampered = run.Tampered
		res.DurationMS = run.Duration.Milliseconds()
		if d := sandbox.Detect(prof, run, o.Cwd); d != nil {
			res.Denials = d
		}
		rec.Exit = &exit
		rec.Layers, rec.DurationMS, rec.Denials = res.Layers, res.DurationMS, res.Denials
		rec.Tampered = run.Tampered
	}
	if runErr != nil {
		rec.Error = runErr.Error()
	}
	rec.Time, rec.AfterRun = time.Now(), true
	if err := o.audit(*rec); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

// argv is what the sandbox executes: a --shell script runs under bash -c,
// the shell it was judged as. Under sh, which is dash on Debian, the same
// text can run other commands: "ls &>/dev/null touch x" is ls with output
// to /dev/null in bash, and "ls &" then "touch x" in dash.
func (o *call) argv() []string {
	if o.Shell {
		return []string{"bash", "-c", o.Argv[0]}
	}
	return o.Argv
}

// plainWords returns the words of a --shell script (argv[0]) that is one
// plain command (execpolicy.PlainCommand) and was judged as exactly those
// words, the first and literal command of ev, for the runner to execute
// without bash; nil otherwise. Approval and audit keep the script: what
// was asked and judged.
func plainWords(shell bool, argv []string, ev execpolicy.Evaluation) []string {
	if !shell || len(argv) != 1 || ev.Dynamic || len(ev.Commands) == 0 {
		return nil
	}
	words, ok := execpolicy.PlainCommand(argv[0])
	if !ok || ev.Commands[0].Dynamic || !slices.Equal(ev.Commands[0].Argv, words) {
		return nil
	}
	return words
}

// request builds the approval request for ev under the profile named
// profile, whose grants digest to pd; digest is the policy's. All are
// bound into the request id, with the managed layer's digest.
func (o *call) request(ev execpolicy.Evaluation, profile, pd, digest string) approval.Request {
	md := o.Ceiling.digest()
	r := approval.Request{
		ID:            approval.RequestID(approval.IDParts{Argv: o.argv(), Cwd: o.Cwd, Profile: profile, ProfileDigest: pd, PolicyDigest: digest, ManagedDigest: md}),
		ManagedDigest: md,
		Argv:          o.argv(),
		Cwd:           approval.Bytes(o.Cwd),
		Workspace:     approval.Bytes(o.Workspace),
		Profile:       profile,
		ProfileDigest: pd,
		Decision:      ev.Decision.String(),
		Reasons:       ev.Reasons,
		Matched:       approval.MatchedRules(ev.Matched),
		Kind:          approval.KindExec,
		Denials:       []approval.Denial{},
		Dangerous:     ev.Dangerous,
	}
	if r.Reasons == nil {
		r.Reasons = []execpolicy.Reason{}
	}
	if prefix, ok := execpolicy.ProposedPrefix(ev); ok && o.AmendFile != "" && !ev.PromptRuleMatched() {
		r.ProposedRule = prefix
	}
	return r
}

// settle settles req through the approval step of o.
func (o *call) settle(ctx context.Context, action approval.Action, ev execpolicy.Evaluation, req *approval.Request, approve, deny []string) (ApprovalResult, error) {
	s := approval.Settler{Approver: o.Approver, ApproverID: o.ApproverID, Session: o.Session, AmendFile: o.AmendFile}
	if o.ApprovalContext != nil {
		ctx = o.ApprovalContext
	}
	return s.Settle(ctx, action, ev.Decision, req, approve, deny)
}

// unsettled audits an answer that could not be made to last (a session or
// rules file that could not be written) and returns err: the command does
// not run, but the approver's answer was a decision and is recorded.
func (o *call) unsettled(rec approval.Record, ans ApprovalResult, err error) error {
	rec.Approver, rec.Outcome, rec.Reason, rec.Error = ans.By, ans.Outcome, ans.Reason, err.Error()
	return errors.Join(err, o.audit(rec))
}

func (o *call) audit(rec approval.Record) error {
	for _, l := range []*approval.Log{o.Audit, o.AuditCopy} {
		if l == nil {
			continue
		}
		if err := l.Write(rec); err != nil {
			return fmt.Errorf("%w: %w", ErrAudit, err)
		}
	}
	return nil
}
