package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
)

// rulesFlags is the repeatable -r/--rules flag shared by the commands that
// load rules.
type rulesFlags struct {
	paths []string
}

func (f *rulesFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.paths, "rules", "r", nil, "rules file, or directory of *.rules files (repeatable)")
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
			return runCheck(cmd.OutOrStdout(), &f, argv)
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
	registerCompletions(cmd)
	return cmd
}

func runCheck(w io.Writer, f *checkFlags, argv []string) error {
	switch {
	case f.format != "json" && f.format != "codex":
		return withCode(exitUsage, fmt.Errorf("check: invalid --format %q (want json or codex)", f.format))
	case f.json && f.format == "codex":
		return withCode(exitUsage, errors.New("check: --json and --format codex are mutually exclusive"))
	case f.shell && len(argv) != 1:
		return withCode(exitUsage, errors.New("check --shell takes exactly one script argument"))
	case f.shell && f.format == "codex":
		return withCode(exitUsage, errors.New("check: --shell and --format codex are mutually exclusive (codex matches an argv)"))
	}
	// The same place, layers and settings as run: check must report the
	// action run would take there.
	pl, err := f.place.resolve()
	if err != nil {
		return err
	}
	cfg, _, err := layers(pl, flagOrEnv("--config", f.configFile, "GATEDEXEC_CONFIG"))
	if err != nil {
		return err
	}
	ap, err := approvalPolicy(f.approvalPolicy, cfg.Settings)
	if err != nil {
		return err
	}
	p, err := layeredPolicy(cfg, &f.rules)
	if err != nil {
		return err
	}
	if f.format == "codex" {
		// Codex matches the argv as literal tokens, without shell
		// analysis, so this format does too.
		out := execpolicy.CodexJSON(p.MatchArgv(argv, execpolicy.MatchOptions{ResolveHostExecutables: f.resolveHost}), f.pretty)
		_, err := w.Write(append(out, '\n'))
		return err
	}
	ev := p.Evaluate(argv, execpolicy.EvalOptions{ResolveHostExecutables: f.resolveHost, Shell: f.shell})
	return writeCheckJSON(w, newCheckOutput(ev, ap.Action(ev)), f.pretty)
}

// checkOutput is the default (--json) result of check.
type checkOutput struct {
	Decision     execpolicy.Decision   `json:"decision"`
	MatchedRules execpolicy.CodexRules `json:"matchedRules"`
	Commands     []checkCommand        `json:"commands"`
	Reasons      []execpolicy.Reason   `json:"reasons"`
	Action       approval.Action       `json:"action"`
}

// checkCommand is one command found in what was checked.
type checkCommand struct {
	Argv         approval.Argv         `json:"argv"`
	MatchedRules execpolicy.CodexRules `json:"matchedRules"`
	Decision     execpolicy.Decision   `json:"decision"`
}

func newCheckOutput(ev execpolicy.Evaluation, action approval.Action) checkOutput {
	out := checkOutput{
		Decision:     ev.Decision,
		MatchedRules: execpolicy.CodexRules(ev.Matched),
		Commands:     []checkCommand{},
		Reasons:      ev.Reasons,
		Action:       action,
	}
	if out.Reasons == nil {
		out.Reasons = []execpolicy.Reason{}
	}
	for _, c := range ev.Commands {
		argv := c.Argv
		if argv == nil {
			argv = []string{}
		}
		out.Commands = append(out.Commands, checkCommand{Argv: argv, MatchedRules: execpolicy.CodexRules(c.Matches), Decision: c.Decision})
	}
	return out
}

// writeCheckJSON writes v as one JSON document. HTML escaping is off so
// that "a>b" in an argv reads as itself.
func writeCheckJSON(w io.Writer, v any, pretty bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}
