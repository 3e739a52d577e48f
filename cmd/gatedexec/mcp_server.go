//go:build gatedexec_mcp

// The MCP server is built into a binary of its own, gatedexec-mcp (this
// package with the gatedexec_mcp tag): its SDK's package initialisation
// (JSON schemas, gob, net/http) and the 5 MB it adds would otherwise be
// paid by every gatedexec start, and by every sandboxed command, whose
// helper is the gatedexec binary.

package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"
	gmcp "github.com/gatedexec/gatedexec/integrations/mcp"
)

type mcpFlags struct {
	place           placeFlags
	rules           rulesFlags
	profile         string
	approvalPolicy  string
	approver        string
	approverTimeout string
	session         string
	auditLog        string
	configFile      string
	maxOutput       int
}

func newMCPCmd() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Serve MCP over stdio with a run_command tool that runs commands through both gates",
		Long: `Mcp serves the Model Context Protocol on stdin/stdout. Its run_command tool
(command, cwd, timeout) judges the command by the rules, settles approval
and runs it in its sandbox profile, returning the decision, exit code,
bounded stdout/stderr and denials. A prompt goes to the client's user by
MCP elicitation when the client supports it, else to an exec approver
(--approver exec:CMD), else it is denied. Rules and profiles are reloaded
when their files change.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(&f)
		},
	}
	fs := cmd.Flags()
	f.place.register(fs)
	f.rules.register(fs)
	fs.StringVarP(&f.profile, "profile", "p", "", "default sandbox profile (name or .toml file) when no allow rule names one")
	fs.StringVar(&f.approvalPolicy, "approval-policy", "", "untrusted, on-request (default), on-failure or never")
	fs.StringVar(&f.approver, "approver", "", "exec:CMD to answer prompts when the client cannot elicit (default: deny)")
	fs.StringVar(&f.approverTimeout, "approver-timeout", "", "how long an exec approver may take (default "+gate.DefaultApproverTimeout.String()+")")
	fs.StringVar(&f.session, "session", "", "session id for session approvals (default $GATEDEXEC_SESSION)")
	fs.StringVar(&f.auditLog, "audit-log", "", "append one JSON line per decision to this file")
	fs.StringVar(&f.configFile, "config", "", "config.toml above the configuration layers")
	fs.IntVar(&f.maxOutput, "max-output", gmcp.DefaultMaxOutput, "bytes kept of each of stdout and stderr per call")
	return cmd
}

func runMCP(f *mcpFlags) error {
	pl, err := f.place.resolve()
	if err != nil {
		return err
	}
	g, err := gate.New(gate.Config{
		Workspace: pl.Workspace,
		Rules:     f.rules.paths,
		Flags: gate.Flags{
			ConfigFile: f.configFile, ApprovalPolicy: f.approvalPolicy, Approver: f.approver,
			ApproverTimeout: f.approverTimeout, Profile: f.profile, Session: f.session, AuditLog: f.auditLog,
		},
		// Stdin and stdout are the protocol's: nobody is at a terminal.
		Interactive: false,
		Stderr:      os.Stderr,
		Version:     version,
		Watch:       true,
	})
	if err != nil {
		return engineExit(err)
	}
	defer g.Close()
	for _, w := range g.Warnings() {
		fmt.Fprintln(os.Stderr, "gatedexec: warning:", w)
	}
	exe, err := os.Executable()
	if err != nil {
		return withCode(exitInternal, fmt.Errorf("naming the gatedexec binary: %w", err))
	}
	// The commands the model runs may not invoke gatedexec itself: the
	// gatedexec beside this binary is the one they would name.
	if sibling := filepath.Join(filepath.Dir(exe), "gatedexec"); filepath.Base(exe) == mcpBinary {
		if _, err := os.Stat(sibling); err == nil {
			exe = sibling
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := gmcp.New(gmcp.Options{Gate: g, Workspace: pl.Workspace, Env: os.Environ(), Exe: exe, MaxOutput: f.maxOutput, Version: version})
	if err := srv.Serve(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		return withCode(exitInternal, fmt.Errorf("mcp: %w", err))
	}
	return nil
}
