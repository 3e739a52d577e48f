package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/sandbox"
)

type runFlags struct {
	place          placeFlags
	rules          rulesFlags
	profile        string
	approvalPolicy string
	approver       string
	session        string
	timeout        time.Duration
	json           bool
	resultFile     string
	auditLog       string
	configFile     string
	shell          bool
	resolveHost    bool
	approve, deny  []string
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
	fs.StringVar(&f.session, "session", "", "session id for session approvals (default $GATEDEXEC_SESSION)")
	fs.DurationVar(&f.timeout, "timeout", 0, "kill the command's process group after this long")
	fs.BoolVar(&f.json, "json", false, "print the result as JSON on stderr after the command")
	fs.StringVar(&f.resultFile, "result-file", "", "write the JSON result (or the deferred request) to this file")
	fs.StringVar(&f.auditLog, "audit-log", "", "append one JSON line per decision to this file; if it cannot be written nothing runs")
	fs.StringVar(&f.configFile, "config", "", "config.toml above the configuration layers")
	fs.BoolVar(&f.shell, "shell", false, "CMD is one shell script, judged by shell analysis as bash and run with bash -c")
	fs.BoolVar(&f.resolveHost, "resolve-host-executables", false, "let an absolute program path match the rules of its basename")
	fs.StringArrayVar(&f.approve, "approve", nil, "resume a deferred request: REQUEST_ID[:once|session|always]")
	fs.StringArrayVar(&f.deny, "deny", nil, "resume a deferred request by denying REQUEST_ID")
	return cmd
}

func runRun(cmd *cobra.Command, f *runFlags, args []string) error {
	if f.shell && len(args) != 1 {
		return withCode(exitUsage, errors.New("run --shell takes exactly one script argument"))
	}
	pl, err := f.place.resolve()
	if err != nil {
		return err
	}
	cfg, dirs, err := layers(pl, flagOrEnv("--config", f.configFile, "GATEDEXEC_CONFIG"))
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "gatedexec: warning:", w)
	}
	s := cfg.Settings
	apSetting := pickSetting("--approval-policy", f.approvalPolicy, "GATEDEXEC_APPROVAL_POLICY", s, "approval_policy", s.ApprovalPolicy, string(approval.DefaultPolicy))
	ap, err := approval.ParsePolicy(apSetting.value)
	if err != nil {
		return apSetting.errorf(err)
	}
	interactive := approval.IsTerminal(int(os.Stdin.Fd())) && approval.IsTerminal(int(os.Stderr.Fd()))
	defaultApprover := "deny"
	if interactive {
		defaultApprover = "tty"
	}
	spec := pickSetting("--approver", f.approver, "GATEDEXEC_APPROVER", s, "approver", s.Approver, defaultApprover)
	approver, err := approval.ParseApprover(spec.value, approval.Options{ExecStderr: cmd.ErrOrStderr()})
	if err != nil {
		return spec.errorf(err)
	}
	policy, err := layeredPolicy(cfg, &f.rules)
	if err != nil {
		return err
	}
	profiles := profileLoader(pl, cfg)
	defaultProfile := pickSetting("--profile", f.profile, "GATEDEXEC_PROFILE", s, "profile", s.Profile, "workspace-write")

	o := &gate.Options{
		Argv: args, Shell: f.shell, Cwd: pl.Cwd, Workspace: pl.Workspace, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Policy:   policy,
		EvalOpts: execpolicy.EvalOptions{ResolveHostExecutables: f.resolveHost, Shell: f.shell},
		Approval: ap, Approver: approver, ApproverID: approverName(spec.value),
		Approve: f.approve, Deny: f.deny,
		AmendFile: userRulesFile(dirs),
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
		Runner:         hostRunner(),
	}
	if session := flagOrEnv("--session", f.session, "GATEDEXEC_SESSION"); session.value != "" {
		o.SessionID = session.value
		o.Session, err = approval.OpenSession(dirs.Sessions(), o.SessionID)
		if err != nil {
			return session.errorf(err)
		}
	}
	audit := pickSetting("--audit-log", f.auditLog, "GATEDEXEC_AUDIT_LOG", s, "audit_log", s.AuditLog, "")
	auditPath := audit.value
	if auditPath != "" {
		o.Audit, err = approval.OpenLog(auditPath, s.AuditFsync != nil && *s.AuditFsync)
		if err != nil {
			// The path may be right and the disk full: not a usage error.
			return withCode(exitInternal, fmt.Errorf("%s: %w", audit.from, err))
		}
		defer o.Audit.Close()
	}
	o.Control, err = controlPaths(dirs, append(append(slices.Clip(f.rules.paths), auditPath), approverFiles(approver)...)...)
	if err != nil {
		return err
	}

	// The sandbox runner forwards signals to the command's process group;
	// here they only cancel a pending approval. SIGHUP is one of them so
	// that closing the terminal of a tty prompt is an audited denial.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	res, runErr := gate.Run(ctx, o)
	if res != nil {
		var out any = res
		if res.Request != nil {
			out = res.Request
		}
		if f.resultFile != "" {
			if err := writeFileAtomic(f.resultFile, out); err != nil {
				return withCode(exitInternal, err)
			}
		}
		if f.json {
			if err := writeJSON(cmd.ErrOrStderr(), res); err != nil {
				return withCode(exitInternal, err)
			}
		}
	}
	return runExit(res, runErr)
}

// runExit maps a gated run to the exit status of DESIGN §2.
func runExit(res *gate.Result, err error) error {
	switch {
	case errors.Is(err, gate.ErrConfig):
		return withCode(exitConfig, err)
	case err != nil:
		return runnerError(err)
	case res.Approval.Outcome == approval.Deferred:
		return withCode(exitDeferred, fmt.Errorf("approval deferred: request %s (resume with --approve %s or --deny %s)", res.RequestID, res.RequestID, res.RequestID))
	case !res.Ran:
		why := res.Approval.Reason
		if why == "" && len(res.Reasons) > 0 {
			why = res.Reasons[0].Detail
		}
		return withCode(exitDenied, fmt.Errorf("denied (%s, %s by %s): %s", res.Decision, res.Approval.Outcome, res.Approval.By, why))
	case res.ExitCode != 0:
		return withCode(res.ExitCode, nil)
	}
	return nil
}

// approverFiles returns the files an exec approver runs: its program and
// each argument naming a regular file (a script given to an interpreter).
// They are control paths: a command that could rewrite its approver would
// approve its own next requests, as one that could append to the rules.
// What else the approver reads, gatedexec cannot know.
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
	return out
}

// approverName is the approver's name as results record it.
func approverName(spec string) string {
	if strings.HasPrefix(spec, "exec:") {
		return "exec"
	}
	return spec
}
