package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/integrations/hook"
)

// exitHookDeny is the status by which Claude Code and Codex hooks block a
// tool call, showing stderr to the model.
const exitHookDeny = 2

type hookFlags struct {
	rules          rulesFlags
	configFile     string
	approvalPolicy string
	profile        string
}

func newHookCmd() *cobra.Command {
	var f hookFlags
	cmd := &cobra.Command{
		Use:   "hook claude-code|codex",
		Short: "Answer one agent PreToolUse event (stdin JSON → stdout JSON); install it with gatedexec hooks install",
		Long: `Hook reads a PreToolUse event from stdin. For a shell tool it judges the
command by the rules: forbidden (or denied by the approval policy) blocks
the call (exit 2, the reason on stderr); otherwise the command is replaced
by a gatedexec run of the same script (updatedInput), so that the sandbox
applies, answering allow, or ask when the rules want approval. Other tools
pass through with no output. Anything malformed or any failure blocks.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHook(cmd, &f, args[0])
		},
	}
	fs := cmd.Flags()
	f.rules.register(fs)
	fs.StringVar(&f.configFile, "config", "", "config.toml above the configuration layers")
	fs.StringVar(&f.approvalPolicy, "approval-policy", "", "untrusted, on-request (default), on-failure or never")
	fs.StringVarP(&f.profile, "profile", "p", "", "default sandbox profile of the rewritten run")
	return cmd
}

func runHook(cmd *cobra.Command, f *hookFlags, name string) error {
	agent, err := hook.ParseAgent(name)
	if err != nil {
		return withCode(exitUsage, err)
	}
	exe, err := os.Executable()
	var ans hook.Answer
	if err != nil {
		ans = hook.Answer{Deny: fmt.Sprintf("gatedexec: hook: cannot name the gatedexec binary for the rewritten command: %v", err)}
	} else {
		ans = hook.Handle(context.Background(), hook.Config{
			Agent: agent, Exe: exe, Rules: f.rules.paths, ConfigFile: f.configFile,
			ApprovalPolicy: f.approvalPolicy, Profile: f.profile, Version: version,
		}, cmd.InOrStdin())
	}
	if _, err := cmd.OutOrStdout().Write(ans.Output); err != nil && ans.Deny == "" {
		ans.Deny = "gatedexec: hook: writing the answer: " + err.Error()
	}
	if ans.Deny != "" {
		return withCode(exitHookDeny, errors.New(ans.Deny))
	}
	return nil
}
