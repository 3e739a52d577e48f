package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gatedexec/gatedexec/gate"
)

// rulesFlags is the repeatable -r/--rules flag shared by the commands that
// load rules.
type rulesFlags struct {
	paths []string
}

func (f *rulesFlags) register(fs *pflag.FlagSet) {
	stringsVarP(fs, &f.paths, "rules", "r", "rules file, or directory of *.rules files (repeatable)")
}

type checkFlags struct {
	place          placeFlags
	rules          rulesFlags
	configFile     string
	shell          bool
	format         string
	json           bool
	pretty         bool
	resolveHost    bool
	agentTerminal  bool
	approvalPolicy string
}

func newCheckCmd() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [flags] -- CMD [ARG...]",
		Short: "Print the exec-policy decision for a command; nothing runs",
		Long: `Check prints the decision of the rules for CMD and the action the approval
policy would take, as JSON. --format codex prints exactly what
"codex execpolicy check" prints. Check exits 0 whatever the decision,
78 when the rules do not load and 64 on usage errors.`,
		Args: func(_ *cobra.Command, argv []string) error {
			if len(argv) == 0 {
				return withCode(exitUsage, errors.New("check: no command given (usage: gatedexec check [flags] -- CMD [ARG...])"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, argv []string) error {
			return runCheck(cmd.OutOrStdout(), cmd.ErrOrStderr(), &f, argv)
		},
	}
	fs := cmd.Flags()
	// Flags end at the command, so "check ls -la" checks "ls -la".
	fs.SetInterspersed(false)
	f.rules.register(fs)
	fs.StringVar(&f.format, "format", "json", "output format: json (gatedexec) or codex (codex execpolicy check)")
	fs.BoolVar(&f.json, "json", false, "gatedexec JSON output (the default)")
	fs.BoolVar(&f.pretty, "pretty", false, "indent the JSON output")
	fs.BoolVar(&f.resolveHost, "resolve-host-executables", false, "let an absolute program path match the rules of its basename (see host_executable)")
	fs.StringVar(&f.approvalPolicy, "approval-policy", "", "approval policy for the reported action: untrusted, on-request (default), on-failure or never")
	// The flags of run that change the decision or the action, so that
	// check answers for the same run.
	f.place.register(fs)
	fs.StringVar(&f.configFile, "config", "", "config.toml above the configuration layers")
	fs.BoolVar(&f.shell, "shell", false, "CMD is one shell script, judged by shell analysis as bash (as run --shell)")
	fs.BoolVar(&f.agentTerminal, "agent-terminal", false, "the terminal is an agent's, not a person's: judge CMD as run --agent-terminal does (what reads commands from that terminal, or clears the environment that sets its pagers, is unanalysable); the hook's runs set it")
	registerCompletions(cmd)
	return cmd
}

func runCheck(w, stderr io.Writer, f *checkFlags, argv []string) error {
	switch {
	case f.format != "json" && f.format != "codex":
		return withCode(exitUsage, fmt.Errorf("check: invalid --format %q (want json or codex)", f.format))
	case f.json && f.format == "codex":
		return withCode(exitUsage, errors.New("check: --json and --format codex are mutually exclusive"))
	case f.shell && len(argv) != 1:
		return withCode(exitUsage, errors.New("check --shell takes exactly one script argument"))
	case f.shell && f.format == "codex":
		return withCode(exitUsage, errors.New("check: --shell and --format codex are mutually exclusive (codex matches an argv)"))
	case f.agentTerminal && f.format == "codex":
		// Codex matches the argv alone, which no terminal changes.
		return withCode(exitUsage, errors.New("check: --agent-terminal and --format codex are mutually exclusive (codex matches an argv)"))
	}
	// The same engine as run, from the same place, layers and settings:
	// check reports the action run would take there.
	pl, err := f.place.resolve()
	if err != nil {
		return err
	}
	g, err := gate.New(gate.Config{
		Workspace: pl.Workspace,
		Rules:     f.rules.paths,
		Flags:     gate.Flags{ConfigFile: f.configFile, ApprovalPolicy: f.approvalPolicy},
		// Judged as on an agent's terminal, as the gate judges run's.
		AgentTerminal: f.agentTerminal,
		Version:       version,
	})
	if err != nil {
		return engineExit(err)
	}
	defer g.Close()
	if line := g.Refused(); line != "" {
		fmt.Fprintln(stderr, "gatedexec: warning:", line)
	}
	if f.format == "codex" {
		out, err := g.CheckCodex(argv, f.resolveHost, f.pretty)
		if err != nil {
			return engineExit(err)
		}
		_, err = w.Write(append(out, '\n'))
		return err
	}
	res, err := g.Check(context.Background(), gate.Request{Argv: argv, Shell: f.shell, Cwd: pl.Cwd, ResolveHostExecutables: f.resolveHost})
	if err != nil {
		return engineExit(err)
	}
	return writeCheckJSON(w, res, f.pretty)
}

// writeCheckJSON writes res as one JSON document, as encoding/json's
// Encoder with HTML escaping off would (CheckResult.MarshalJSON).
func writeCheckJSON(w io.Writer, res *gate.CheckResult, pretty bool) error {
	b, err := res.MarshalJSON()
	if err != nil {
		return err
	}
	if pretty {
		var buf bytes.Buffer
		if err := json.Indent(&buf, b, "", "  "); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
