// Package gate is gatedexec's engine: it judges a command by the exec
// policy, settles the approval, and runs the command in the OS sandbox the
// decision picked.
//
// A Gate is built once (New) from one configuration — the layers of
// DESIGN §2, the rules, the profiles, the approver and the audit log —
// and then serves any number of requests, concurrently: Run carries one
// command through both gates, Check says what Run would decide without
// running anything. Every front end (the CLI's run and check, the agent
// hooks and the MCP server to come) calls the same Gate, so they cannot
// disagree. A Gate can reload its configuration when the files it came
// from change (Reload, Refresh, Config.Watch).
package gate

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
)

// Config says where a Gate's configuration comes from. The layers are
// read from the directories DESIGN §2 names (through Getenv); Flags and
// Rules stand above them.
type Config struct {
	// Workspace is the resolved workspace (see ResolvePlace): its
	// .gatedexec layer is read, and requests run in it.
	Workspace string
	// Rules are rules files or directories read after the layers' (-r).
	Rules []string
	// Flags are values given by the caller, above GATEDEXEC_* variables
	// and config.toml keys; an error about one is ErrUsage.
	Flags Flags
	// Getenv reads the environment (GATEDEXEC_*, XDG_*, HOME, TMPDIR);
	// nil is os.Getenv.
	Getenv func(string) string
	// Interactive says a person is at a terminal: the default approver
	// is then tty, else deny.
	Interactive bool
	// AgentTerminal says the terminal a command runs on, if any, is an
	// agent's, which the model drives (the run an agent hook wrote: Codex
	// gives a command a pty when the model asks, and the model types into
	// it): nobody there may answer a prompt, so the approver is never tty,
	// neither by default nor when configured; it is deny instead.
	AgentTerminal bool
	// Stderr receives an exec approver's stderr and the notice that
	// gatedexec waits for it; nil discards them.
	Stderr io.Writer
	// Version identifies this build in the compiled-rules cache.
	Version string
	// Watch makes every Run and Check first Refresh the configuration,
	// for a long-lived front end (the MCP server); a one-shot caller
	// leaves it off and saves the stat calls. The host's runner is then a
	// long-lived one (linux.Runner.LongLived), until Close.
	Watch bool
	// Runner is the sandbox backend; nil is this host's.
	Runner sandbox.Runner
	// LeaveToExit, when set, says the caller exits after its runs,
	// through it: this host's backend may then leave to that exit what a
	// run's end would close or remove only to drop it, once the caller
	// has the status (linux.Runner.LeaveToExit).
	LeaveToExit *exitunmap.Leave
}

// Flags are the settings a caller may give above the configuration, by
// their command-line names; "" is not given.
type Flags struct {
	ConfigFile      string // --config, else GATEDEXEC_CONFIG
	ApprovalPolicy  string // --approval-policy
	Approver        string // --approver
	ApproverTimeout string // --approver-timeout
	Profile         string // --profile: the default profile
	Session         string // --session, else GATEDEXEC_SESSION
	AuditLog        string // --audit-log
}

// Request is one command for a Gate to judge and run.
type Request struct {
	// Argv is the command; with Shell, Argv[0] is a bash script.
	Argv  []string
	Shell bool
	// Cwd is the resolved directory to run in; "" is the workspace.
	Cwd string
	// Workspace, when set, must be the Gate's: the layers were read for it.
	Workspace string
	// Env is the command's environment; on an agent's terminal
	// (Config.AgentTerminal) its pagers are set after the profile's
	// env_deny (agentTerminalEnv).
	Env                    []string
	Stdin                  io.Reader
	Stdout, Stderr         io.Writer
	ResolveHostExecutables bool
	// Approve and Deny resume a deferred request (REQUEST_ID[:scope]).
	Approve, Deny []string
	// Session, when set, replaces the Gate's session id for this request.
	Session string
	// Timeout, when positive, replaces the profile's timeout and bounds
	// the wait for an exec approver.
	Timeout time.Duration
	// TimeoutOnlyShortens says Timeout comes from someone the profile's
	// limits bind (the model, through the MCP server): it may shorten the
	// profile's timeout, never lengthen it or lift it.
	TimeoutOnlyShortens bool
	// ResultFile is where the caller writes the result; when it already
	// exists the command may not write it.
	ResultFile string
	// ApprovalContext, when set, is what ends a pending approval instead
	// of Run's context: the CLI cancels it on SIGINT, SIGTERM and SIGHUP,
	// which must abort a prompt but not kill a running command (the
	// backend forwards those signals to the command, whose own handling
	// decides).
	ApprovalContext context.Context
	// ForwardSignals passes the signals gatedexec receives, and job
	// control on a terminal, on to the command (sandbox.Command): the CLI
	// sets it; a library caller ends the command through Run's context.
	ForwardSignals bool
	// Signals, with ForwardSignals, is the CLI's subscription to those
	// signals, made with WatchSignals at its start so that its cost
	// overlaps the loading of rules and profiles; nil subscribes when the
	// command starts.
	Signals *sandbox.SignalWatch
	// Approver, when set, is asked for this request instead of the
	// configured approver (the MCP server asks its client's user through
	// elicitation); ApproverID names it in results and the audit log.
	Approver   Approver
	ApproverID string
	// Refuse, when set, is shown the rules' judgment of a command they do
	// not deny and may refuse it for a reason of the front end's own (an
	// agent's command invoking gatedexec itself): a non-empty reason
	// denies it, by "policy", before anyone is asked, and is audited as
	// any denial. Run alone consults it.
	Refuse func(*CheckResult) string
}

// Approver answers approval requests (DESIGN §4); a front end with its
// own way to ask a person passes one in Request.Approver.
type Approver = approval.Approver

// Gate serves requests from one configuration; it is safe for
// concurrent use. Close it to close its audit log.
type Gate struct {
	cfg    Config
	getenv func(string) string
	runner sandbox.Runner
	// state is the configuration in force; Reload swaps it whole, so a
	// request sees one configuration from start to end.
	state atomic.Pointer[state]
	// reload serialises rebuilding the state.
	reload sync.Mutex
	// ask serialises the approver: a terminal shows one prompt at a time.
	ask sync.Mutex
	// logs are the audit logs opened, closed by Close: a request still
	// running on a replaced state keeps writing to its log.
	logsMu sync.Mutex
	logs   map[string]*approval.Log
	// ownRunner is set when the Gate made its runner, which Close closes.
	ownRunner bool
}

// New reads the configuration cfg names and builds a Gate. Errors wrap
// ErrConfig (a bad file, naming file:line:col) or ErrUsage (a bad flag).
func New(cfg Config) (*Gate, error) {
	g := &Gate{cfg: cfg, getenv: cfg.Getenv, runner: cfg.Runner, logs: map[string]*approval.Log{}}
	if g.getenv == nil {
		g.getenv = os.Getenv
	}
	if g.runner == nil {
		g.runner = hostRunner(cfg.Watch, cfg.LeaveToExit)
		g.ownRunner = true
	}
	st, err := g.load(cfg.Watch)
	if err != nil {
		return nil, err
	}
	g.state.Store(st)
	return g, nil
}

// Warnings are what the configuration in force says the user should be
// told once (an ignored untrusted workspace layer), and one line saying
// what the managed layer refused of the lower layers, the environment
// and the flags.
func (g *Gate) Warnings() []string {
	w := slices.Clone(g.state.Load().layers.Warnings)
	if line := g.Refused(); line != "" {
		w = append(w, line)
	}
	return w
}

// Refused is one line saying what the managed layer refused of the lower
// layers, the environment and the flags, "" when nothing (or no managed
// layer): a front end says it once per run.
func (g *Gate) Refused() string {
	st := g.state.Load()
	return refusedLine(st.layers.Managed, st.refused)
}

// ApproverOrigin says where the approver in force was chosen ("--approver",
// "GATEDEXEC_APPROVER", "file:line: approver", or "default approver"), so
// that a refusal by the deny approver can say why nobody was asked.
func (g *Gate) ApproverOrigin() string {
	st := g.state.Load()
	return st.approver.from
}

// ApproverPinned says whether the managed layer pins the approver (its
// approver key): then no flag, variable or lower config.toml changes it.
func (g *Gate) ApproverPinned() bool {
	return g.state.Load().ceiling.pinsApprover()
}

// ApproverName is the configured approver's kind: "tty", "exec", "deny"
// or "defer".
func (g *Gate) ApproverName() string {
	return approverName(g.state.Load().approver.value)
}

// Reload reads the configuration again and puts it in force for the
// requests that start after it; a bad configuration leaves the previous
// one in force and is returned.
func (g *Gate) Reload() error {
	g.reload.Lock()
	defer g.reload.Unlock()
	st, err := g.load(true)
	if err != nil {
		return err
	}
	g.state.Store(st)
	return nil
}

// Refresh reloads the configuration when a file it came from changed
// since it was read (see fingerprint), and says whether it did. A Gate
// made without Watch did not fingerprint what it read, and its first
// Refresh reloads.
func (g *Gate) Refresh() (bool, error) {
	st := g.state.Load()
	if st.print != "" && fingerprint(st.sources) == st.print {
		return false, nil
	}
	g.reload.Lock()
	defer g.reload.Unlock()
	if cur := g.state.Load(); cur != st && cur.print != "" && fingerprint(cur.sources) == cur.print {
		// Another request reloaded it meanwhile.
		return true, nil
	}
	nst, err := g.load(true)
	if err != nil {
		return false, err
	}
	g.state.Store(nst)
	return true, nil
}

// Close closes the audit logs the Gate opened and the runner it made;
// call it once every request has ended.
func (g *Gate) Close() error {
	g.logsMu.Lock()
	defer g.logsMu.Unlock()
	var first error
	if c, ok := g.runner.(io.Closer); ok && g.ownRunner {
		first = c.Close()
	}
	for k, l := range g.logs {
		if err := l.Close(); err != nil && first == nil {
			first = err
		}
		delete(g.logs, k)
	}
	return first
}

// current returns the state to serve a request with, refreshed first
// when the Gate watches its files.
func (g *Gate) current() (*state, error) {
	if g.cfg.Watch {
		if _, err := g.Refresh(); err != nil {
			return nil, err
		}
	}
	return g.state.Load(), nil
}

// Run judges the request's command, settles the approval, and runs it in
// its profile. The Result is non-nil whenever a decision was made; the
// error is non-nil when gatedexec itself failed (wrapping ErrConfig,
// ErrUsage, ErrAudit, sandbox.ErrLayerUnavailable, ErrNotFound or
// ErrCannotExec).
func (g *Gate) Run(ctx context.Context, req Request) (*Result, error) {
	st, err := g.current()
	if err != nil {
		return nil, err
	}
	c, err := st.call(g, req)
	if err != nil {
		return nil, err
	}
	return c.run(ctx)
}

// ErrNotFound and ErrCannotExec say the command could not be started
// (exit 127 and 126).
var (
	ErrNotFound   = sandbox.ErrNotFound
	ErrCannotExec = sandbox.ErrCannotExec
)

// serialApprover lets one request at a time ask the approver.
type serialApprover struct {
	mu *sync.Mutex
	a  approval.Approver
}

func (s serialApprover) Approve(ctx context.Context, r *approval.Request) (approval.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.a.Approve(ctx, r)
}

// place returns the request's place, checked against the Gate's workspace.
func (g *Gate) place(req Request) (Place, error) {
	pl := Place{Cwd: req.Cwd, Workspace: g.cfg.Workspace}
	if req.Workspace != "" && req.Workspace != g.cfg.Workspace {
		return pl, usageErr(fmt.Errorf("workspace %s: this gate serves the workspace %s", req.Workspace, g.cfg.Workspace))
	}
	if pl.Cwd == "" {
		pl.Cwd = pl.Workspace
	}
	return pl, nil
}

// evalOptions are the policy's options for req.
func (g *Gate) evalOptions(req Request) execpolicy.EvalOptions {
	return execpolicy.EvalOptions{ResolveHostExecutables: req.ResolveHostExecutables, Shell: req.Shell, AgentTerminal: g.cfg.AgentTerminal}
}

// timeout is the run's timeout for a profile whose own is limit (0: none).
func (r Request) timeout(limit time.Duration) time.Duration {
	if r.Timeout <= 0 || r.TimeoutOnlyShortens && limit > 0 && r.Timeout >= limit {
		return limit
	}
	return r.Timeout
}
