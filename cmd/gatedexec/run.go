package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/sandbox"
)

type runFlags struct {
	place           placeFlags
	rules           rulesFlags
	profile         string
	approvalPolicy  string
	approver        string
	approverTimeout string
	session         string
	timeout         time.Duration
	json            bool
	pretty          bool
	resultFile      string
	auditLog        string
	configFile      string
	shell           bool
	resolveHost     bool
	approve, deny   []string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] -- CMD [ARG...]",
		Short: "Judge a command by the rules, settle approval, and run it in its sandbox profile",
		Args:  usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd, &f, args)
		},
	}
	fs := cmd.Flags()
	fs.SetInterspersed(false)
	f.place.register(fs)
	f.rules.register(fs)
	fs.StringVarP(&f.profile, "profile", "p", "", "default sandbox profile (name or .toml file) when no allow rule names one (default workspace-write)")
	fs.StringVar(&f.approvalPolicy, "approval-policy", "", "untrusted, on-request (default), on-failure or never")
	fs.StringVar(&f.approver, "approver", "", "tty (default with a terminal), deny (default without), defer, or exec:CMD")
	fs.StringVar(&f.approverTimeout, "approver-timeout", "", "how long an exec approver may take to answer before the request is denied (default "+approval.DefaultExecTimeout.String()+", at most --timeout)")
	fs.StringVar(&f.session, "session", "", "session id for session approvals (default $GATEDEXEC_SESSION)")
	fs.DurationVar(&f.timeout, "timeout", 0, "kill the command's process group after this long (exit 124)")
	fs.BoolVar(&f.json, "json", false, "print the result as one line of JSON on stderr after the command")
	fs.BoolVar(&f.pretty, "pretty", false, "with --json, indent the JSON")
	fs.StringVar(&f.resultFile, "result-file", "", "write the JSON result (or the deferred request) to this file")
	fs.StringVar(&f.auditLog, "audit-log", "", "append one JSON line per decision to this file; if it cannot be written nothing runs")
	fs.StringVar(&f.configFile, "config", "", "config.toml above the configuration layers")
	fs.BoolVar(&f.shell, "shell", false, "CMD is one shell script, judged by shell analysis as bash and run with bash -c")
	fs.BoolVar(&f.resolveHost, "resolve-host-executables", false, "let an absolute program path match the rules of its basename")
	fs.StringArrayVar(&f.approve, "approve", nil, "resume a deferred request: REQUEST_ID[:once|session|always]")
	fs.StringArrayVar(&f.deny, "deny", nil, "resume a deferred request by denying REQUEST_ID")
	registerCompletions(cmd)
	return cmd
}

// runRun checks the output paths, runs the command through the gates and
// reports what happened. Every path gatedexec writes after the command is
// checked before it starts: a failure after the command ran would make a
// caller that retries on 125 run it twice.
func runRun(cmd *cobra.Command, f *runFlags, args []string) error {
	if err := checkRunFlags(cmd, f, args); err != nil {
		return err
	}
	result, err := openResultFile(f.resultFile)
	if err != nil {
		return err
	}
	defer result.Close()
	res, hint, err := gatedRun(cmd, f, args)
	return reportRun(cmd.ErrOrStderr(), f, result, res, hint, err)
}

// checkRunFlags rejects flag values that can be told wrong before anything
// is read (exit 64).
func checkRunFlags(cmd *cobra.Command, f *runFlags, args []string) error {
	if f.shell && len(args) != 1 {
		return withCode(exitUsage, errors.New("run --shell takes exactly one script argument"))
	}
	if cmd.Flags().Changed("timeout") && f.timeout <= 0 {
		return withCode(exitUsage, fmt.Errorf("--timeout %v: want a positive duration", f.timeout))
	}
	if f.pretty && !f.json {
		return withCode(exitUsage, errors.New("--pretty only applies to --json"))
	}
	for _, v := range f.approve {
		if err := approval.CheckResumeValue(v, true); err != nil {
			return withCode(exitUsage, fmt.Errorf("--approve: %w", err))
		}
	}
	for _, v := range f.deny {
		if err := approval.CheckResumeValue(v, false); err != nil {
			return withCode(exitUsage, fmt.Errorf("--deny: %w", err))
		}
	}
	return nil
}

// denyHint is what reportRun needs to explain a refusal by the deny
// approver: whether it was chosen or the default for want of a terminal.
type denyHint struct {
	approver setting
}

// gatedRun resolves the configuration and runs the command through the
// gates. The error carries its exit status.
func gatedRun(cmd *cobra.Command, f *runFlags, args []string) (*gate.Result, denyHint, error) {
	var hint denyHint
	pl, err := f.place.resolve()
	if err != nil {
		return nil, hint, err
	}
	configFile := flagOrEnv("--config", f.configFile, "GATEDEXEC_CONFIG")
	cfg, dirs, err := layers(pl, configFile)
	if err != nil {
		return nil, hint, err
	}
	stderr := cmd.ErrOrStderr()
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "gatedexec: warning:", w)
	}
	s := cfg.Settings
	ap, err := approvalPolicy(f.approvalPolicy, s)
	if err != nil {
		return nil, hint, err
	}
	session := flagOrEnv("--session", f.session, "GATEDEXEC_SESSION")
	interactive := approval.IsTerminal(int(os.Stdin.Fd())) && approval.IsTerminal(int(os.Stderr.Fd()))
	defaultApprover := "deny"
	if interactive {
		defaultApprover = "tty"
	}
	spec := pickSetting("--approver", f.approver, "GATEDEXEC_APPROVER", s, "approver", s.Approver, defaultApprover)
	hint.approver = spec
	at := pickSetting("--approver-timeout", f.approverTimeout, "GATEDEXEC_APPROVER_TIMEOUT", s, "approver_timeout", s.ApproverTimeout, approval.DefaultExecTimeout.String())
	approverTimeout, err := config.ParseTimeout(at.value)
	if err != nil {
		return nil, hint, at.errorf(err)
	}
	if f.timeout > 0 && f.timeout < approverTimeout {
		// A caller's budget for the run bounds the wait for an answer too.
		approverTimeout = f.timeout
	}
	approver, err := approval.ParseApprover(spec.value, approval.Options{
		ExecStderr: stderr, Status: stderr, ExecTimeout: approverTimeout, Session: session.value != "",
	})
	if err != nil {
		return nil, hint, spec.errorf(err)
	}
	policy, err := layeredPolicy(cfg, &f.rules)
	if err != nil {
		return nil, hint, err
	}
	profiles := profileLoader(pl, cfg)
	if err := checkRuleProfiles(policy, profiles); err != nil {
		return nil, hint, err
	}
	defaultProfile := pickSetting("--profile", f.profile, "GATEDEXEC_PROFILE", s, "profile", s.Profile, "workspace-write")

	o := &gate.Options{
		Argv: args, Shell: f.shell, Cwd: pl.Cwd, Workspace: pl.Workspace, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Policy:   policy,
		EvalOpts: execpolicy.EvalOptions{ResolveHostExecutables: f.resolveHost, Shell: f.shell},
		Approval: ap, Approver: approver, ApproverID: approverName(spec.value),
		Approve: f.approve, Deny: f.deny,
		AmendFile:   userRulesFile(dirs),
		DeferredDir: dirs.Deferred(),
		Profile: func(name string) (*sandbox.Profile, error) {
			p, err := profiles.Resolve(name)
			if err != nil && name == defaultProfile.value {
				// Always 78 (gate.ErrConfig), a flag too: it names a
				// profile file or layer that is wrong.
				err = fmt.Errorf("%s: %w", defaultProfile.from, err)
			}
			return p, err
		},
		DefaultProfile: defaultProfile.value,
		Timeout:        f.timeout,
		Runner:         signalledRunner{hostRunner()},
	}
	if session.value != "" {
		o.SessionID = session.value
		o.Session, err = approval.OpenSession(dirs.Sessions(), o.SessionID)
		switch {
		case errors.Is(err, approval.ErrSessionID):
			return nil, hint, session.errorf(err)
		case err != nil:
			// The id is fine; the store cannot be used (a read-only
			// home): gatedexec's failure, not the caller's.
			return nil, hint, withCode(exitInternal, fmt.Errorf("%s: %w", session.from, err))
		}
	}
	audit := pickSetting("--audit-log", f.auditLog, "GATEDEXEC_AUDIT_LOG", s, "audit_log", s.AuditLog, "")
	auditPath := audit.value
	if auditPath != "" {
		o.Audit, err = approval.OpenLog(auditPath, s.AuditFsync != nil && *s.AuditFsync)
		if err != nil {
			// The path may be right and the disk full: not a usage error.
			return nil, hint, withCode(exitInternal, fmt.Errorf("%s: %w", audit.from, err))
		}
		defer o.Audit.Close()
	}
	// Every file gatedexec reads or writes for a run: a command that could
	// change one would decide how its next run is judged or sandboxed.
	own := append(slices.Clip(f.rules.paths), auditPath, profileFile(defaultProfile.value), configFile.value, existing(f.resultFile))
	o.Control, err = controlPaths(dirs, append(own, approverFiles(approver)...)...)
	if err != nil {
		return nil, hint, err
	}

	ctx, stop := approvalContext()
	defer stop()
	res, err := gate.Run(ctx, o)
	return res, hint, runExit(res, err, hint)
}

// signalledRunner runs the command without the approval context's
// cancellation: once it runs, the runner itself passes SIGINT and SIGTERM
// on to it, and a cancellation on the same signal would also kill it with
// SIGTERM, racing its own handler (a trap that exits 7 came out as 143).
type signalledRunner struct{ sandbox.Runner }

func (r signalledRunner) Run(ctx context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	return r.Runner.Run(context.WithoutCancel(ctx), c)
}

// approvalContext returns the context a pending approval is cancelled by.
// The sandbox runner forwards signals to the command's process group;
// here they only end a pending approval: SIGINT and SIGTERM abort it, and
// SIGHUP (the terminal of a tty prompt closed) is an audited denial.
func approvalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cause := fmt.Errorf("signal %v", sig)
			if sig == syscall.SIGHUP {
				cause = approval.ErrHangup
			}
			cancel(cause)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// approvalPolicy picks and parses the approval policy from the flag, the
// environment or the configuration, as run and check both do.
func approvalPolicy(flag string, s config.Settings) (approval.Policy, error) {
	st := pickSetting("--approval-policy", flag, "GATEDEXEC_APPROVAL_POLICY", s, "approval_policy", s.ApprovalPolicy, string(approval.DefaultPolicy))
	ap, err := approval.ParsePolicy(st.value)
	if err != nil {
		return "", st.errorf(err)
	}
	return ap, nil
}

// failureResult is the result file and --json output of a run that
// gatedexec could not carry out (exit 64, 78, 125 before a decision).
type failureResult struct {
	Error    string `json:"error"`
	Status   int    `json:"status"`
	ExitCode *int   `json:"exit_code"`
}

// reportRun writes the result file and the --json output, prints what the
// user should know (denials, rules written), and returns the exit status.
// Once the command has run, its own status stands: a result that cannot
// be written is said on stderr, and a caller retrying on 125 would run
// the command twice.
func reportRun(w io.Writer, f *runFlags, result *atomicfile.Target, res *gate.Result, hint denyHint, err error) error {
	code, _ := exitCodeOf(err)
	if err == nil {
		code = exitOK
	}
	var out any
	switch {
	case res != nil && res.Request != nil:
		out = res.Request
	case res != nil:
		if err != nil && (code == exitInternal || code == exitConfig) {
			res.Error = err.Error()
		}
		out = res
	case err != nil:
		out = failureResult{Error: err.Error(), Status: code}
	}
	if res != nil {
		explainRun(w, res)
	}
	ran := res != nil && res.Ran
	if result != nil && out != nil {
		if werr := writeFileAtomic(result, out); werr != nil {
			if !ran {
				return withCode(exitInternal, errors.Join(err, werr))
			}
			fmt.Fprintf(w, "gatedexec: the command ran (exit %d) but its result was not written: %v\n", *res.ExitCode, werr)
		}
	}
	if f.json && out != nil {
		var jout any = out
		if res != nil {
			// --json always shows the run's result, a deferred one too.
			jout = res
		}
		if werr := writeJSONLine(w, jout, f.pretty); werr != nil && !ran {
			return withCode(exitInternal, errors.Join(err, werr))
		}
	}
	return err
}

// runExit maps a gated run to the exit status of DESIGN §2.
func runExit(res *gate.Result, err error, hint denyHint) error {
	switch {
	case errors.Is(err, gate.ErrConfig):
		return withCode(exitConfig, err)
	case err != nil:
		return runnerError(err)
	case res.Approval.Outcome == approval.Deferred:
		return withCode(exitDeferred, fmt.Errorf("approval deferred: request %s (resume with --approve %s or --deny %s)", res.RequestID, res.RequestID, res.RequestID))
	case !res.Ran:
		return withCode(exitDenied, deniedError(res, hint))
	case res.TimedOut:
		return withCode(exitTimedOut, fmt.Errorf("the command timed out after %v and was killed", time.Duration(res.DurationMS)*time.Millisecond))
	case *res.ExitCode != 0:
		return withCode(*res.ExitCode, nil)
	}
	return nil
}

// approverFiles returns the files an exec approver runs: its program and
// each argument naming a regular file (a script given to an interpreter),
// and the directory of each, where interpreters look for what the script
// imports first (Python's sys.path[0], Node's node_modules). They are
// control paths: a command that could rewrite its approver, or plant a
// module beside it, would approve its own next requests, as one that could
// append to the rules. What else the approver reads, gatedexec cannot know.
func approverFiles(a approval.Approver) []string {
	ea, ok := a.(*approval.ExecApprover)
	if !ok || len(ea.Argv) == 0 {
		return nil
	}
	var out []string
	if p, err := exec.LookPath(ea.Argv[0]); err == nil {
		out = append(out, p)
	} else if strings.ContainsRune(ea.Argv[0], '/') {
		// Missing now, it is still where the approver will be looked
		// for: a command that created it there would approve itself.
		out = append(out, ea.Argv[0])
	}
	for _, arg := range ea.Argv[1:] {
		if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
			out = append(out, arg)
		}
	}
	for _, f := range slices.Clone(out) {
		out = append(out, filepath.Dir(f))
	}
	return out
}

// approverName is the approver's name as results record it.
func approverName(spec string) string {
	if strings.HasPrefix(spec, "exec:") {
		return "exec"
	}
	return spec
}
