package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/internal/exitunmap"
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
	agentTerminal   bool
	approve, deny   []string
	// leave is no flag: the exit of the process, which a run may leave
	// work to (gate.Config.LeaveToExit); nil for none.
	leave *exitunmap.Leave
}

func newRunCmd(leave *exitunmap.Leave) *cobra.Command {
	f := runFlags{leave: leave}
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
	fs.StringVarP(&f.profile, "profile", "p", "", "default sandbox profile (name or .toml file) when no allow rule names one (default "+gate.DefaultProfile+")")
	fs.StringVar(&f.approvalPolicy, "approval-policy", "", "untrusted, on-request (default), on-failure or never")
	fs.StringVar(&f.approver, "approver", "", "tty (default with a terminal), deny (default without), defer, or exec:CMD")
	fs.StringVar(&f.approverTimeout, "approver-timeout", "", "how long an exec approver may take to answer before the request is denied (default "+gate.DefaultApproverTimeout.String()+", at most --timeout)")
	fs.StringVar(&f.session, "session", "", "session id for session approvals (default $GATEDEXEC_SESSION)")
	fs.DurationVar(&f.timeout, "timeout", 0, "kill the command's process group after this long (exit 124)")
	fs.BoolVar(&f.json, "json", false, "print the result as one line of JSON on stderr after the command")
	fs.BoolVar(&f.pretty, "pretty", false, "with --json, indent the JSON")
	fs.StringVar(&f.resultFile, "result-file", "", "write the JSON result (or the deferred request) to this file")
	fs.StringVar(&f.auditLog, "audit-log", "", "append one JSON line per decision to this file; if it cannot be written nothing runs")
	fs.StringVar(&f.configFile, "config", "", "config.toml above the configuration layers")
	fs.BoolVar(&f.shell, "shell", false, "CMD is one shell script, judged by shell analysis as bash and run with bash -c")
	fs.BoolVar(&f.resolveHost, "resolve-host-executables", false, "let an absolute program path match the rules of its basename")
	fs.BoolVar(&f.agentTerminal, "agent-terminal", false, "the terminal is an agent's, not a person's: never ask at it (tty approver: deny); the hook's runs set it")
	stringsVarP(fs, &f.approve, "approve", "", "resume a deferred request: REQUEST_ID[:once|session|always]")
	stringsVarP(fs, &f.deny, "deny", "", "resume a deferred request by denying REQUEST_ID")
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
		if err := gate.CheckResumeValue(v, true); err != nil {
			return withCode(exitUsage, fmt.Errorf("--approve: %w", err))
		}
	}
	for _, v := range f.deny {
		if err := gate.CheckResumeValue(v, false); err != nil {
			return withCode(exitUsage, fmt.Errorf("--deny: %w", err))
		}
	}
	return nil
}

// denyHint is what reportRun needs to explain a refusal by the deny
// approver: where the approver was chosen (a "default" origin means for
// want of a terminal).
type denyHint struct {
	approverFrom string
	// pinned says the managed layer pinned the approver: no flag or
	// config of the user's can change it.
	pinned bool
}

// gatedRun builds the engine from the flags and runs the command through
// it. The error carries its exit status.
func gatedRun(cmd *cobra.Command, f *runFlags, args []string) (*gate.Result, denyHint, error) {
	// First, so that subscribing overlaps loading the rules.
	sigs := gate.WatchSignals()
	var hint denyHint
	pl, err := f.place.resolve()
	if err != nil {
		return nil, hint, err
	}
	stderr := cmd.ErrOrStderr()
	g, err := gate.New(gate.Config{
		Workspace: pl.Workspace,
		Rules:     f.rules.paths,
		Flags: gate.Flags{
			ConfigFile: f.configFile, ApprovalPolicy: f.approvalPolicy, Approver: f.approver,
			ApproverTimeout: f.approverTimeout, Profile: f.profile, Session: f.session, AuditLog: f.auditLog,
		},
		Interactive:   gate.Interactive(os.Stdin, os.Stderr),
		AgentTerminal: f.agentTerminal,
		Stderr:        stderr,
		Version:       version,
		LeaveToExit:   f.leave,
	})
	if err != nil {
		return nil, hint, engineExit(err)
	}
	defer g.Close()
	for _, w := range g.Warnings() {
		fmt.Fprintln(stderr, "gatedexec: warning:", w)
	}
	hint.approverFrom, hint.pinned = g.ApproverOrigin(), g.ApproverPinned()

	ctx, stop := approvalContext(sigs)
	defer stop()
	res, err := g.Run(context.Background(), gate.Request{
		ApprovalContext: ctx,
		Argv:            args, Shell: f.shell, Cwd: pl.Cwd, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		ResolveHostExecutables: f.resolveHost,
		Approve:                f.approve, Deny: f.deny,
		Timeout:        f.timeout,
		ResultFile:     f.resultFile,
		ForwardSignals: true, Signals: sigs,
	})
	return res, hint, runExit(res, err, hint)
}

// approvalContext returns the context a pending approval is cancelled by.
// The sandbox runner forwards signals to the command's process group;
// here they only end a pending approval: SIGINT and SIGTERM abort it, and
// SIGHUP (the terminal of a tty prompt closed) is an audited denial. They
// come through watch, the CLI's subscription to the signals it forwards.
func approvalContext(watch *gate.SignalWatch) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	watch.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cause := fmt.Errorf("signal %v", sig)
			if sig == syscall.SIGHUP {
				cause = gate.ErrHangup
			}
			cancel(cause)
		case <-done:
		}
	}()
	return ctx, func() {
		watch.Stop(sigs)
		close(done)
		cancel(nil)
	}
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
	case err != nil:
		return engineExit(err)
	case res.Approval.Outcome == gate.Deferred:
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
