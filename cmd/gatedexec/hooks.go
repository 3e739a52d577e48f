package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/integrations/hook"
	"github.com/gatedexec/gatedexec/integrations/hooks"
)

type hooksFlags struct {
	claudeCode, codex bool
	user, project     bool
}

func newHooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks install|uninstall|print --claude-code|--codex [--user|--project]",
		Short: "Wire gatedexec hook into Claude Code's or Codex's settings",
		Long: `Hooks edits the agent's settings file so that every shell command the agent
runs goes through gatedexec hook: Claude Code's ~/.claude/settings.json
(--user, the default) or .claude/settings.json of the project (--project);
Codex's ~/.codex/hooks.json or .codex/hooks.json. The file is merged with
what is there, the edit is idempotent and atomic, and the previous file is
kept as FILE.bak. A FILE that is a symbolic link is edited where the link
ends, and stays a link; the file keeps its mode; a file the user may not
write is refused. print shows what install would write.`,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			return errors.New("hooks: want install, uninstall or print")
		}),
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	for _, verb := range []string{"install", "uninstall", "print"} {
		var f hooksFlags
		sub := &cobra.Command{
			Use:   verb + " --claude-code|--codex [--user|--project]",
			Short: strings.ToUpper(verb[:1]) + verb[1:] + " the gatedexec hook",
			Args:  usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runHooks(cmd, verb, &f)
			},
		}
		fs := sub.Flags()
		fs.BoolVar(&f.claudeCode, "claude-code", false, "Claude Code's settings.json")
		fs.BoolVar(&f.codex, "codex", false, "Codex's hooks.json")
		fs.BoolVar(&f.user, "user", false, "the user's settings (default)")
		fs.BoolVar(&f.project, "project", false, "the project's settings (git top-level of the current directory, else it)")
		cmd.AddCommand(sub)
	}
	return cmd
}

func runHooks(cmd *cobra.Command, verb string, f *hooksFlags) error {
	if f.claudeCode == f.codex {
		return withCode(exitUsage, errors.New("hooks "+verb+": give one of --claude-code or --codex"))
	}
	if f.user && f.project {
		return withCode(exitUsage, errors.New("hooks "+verb+": --user and --project are mutually exclusive"))
	}
	agent, scope := hook.ClaudeCode, hooks.User
	if f.codex {
		agent = hook.Codex
	}
	project := ""
	if f.project {
		scope = hooks.Project
		pl, err := gate.ResolvePlace("", "")
		if err != nil {
			return engineExit(err)
		}
		project = pl.Workspace
	}
	path, err := hooks.SettingsPath(agent, scope, os.Getenv, project)
	if err != nil {
		return withCode(exitUsage, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return withCode(exitInternal, fmt.Errorf("naming the gatedexec binary: %w", err))
	}
	t := hooks.Target{Agent: agent, Path: path, Command: hooks.Command(exe, agent), Exe: exe}
	var res *hooks.Result
	switch verb {
	case "install":
		res, err = hooks.Install(t)
	case "uninstall":
		res, err = hooks.Uninstall(t)
	default:
		res, err = hooks.Print(t)
	}
	if err != nil {
		return engineExit(err)
	}
	w := cmd.ErrOrStderr()
	if res.Path != "" && res.Path != path {
		// A link: say which file was edited through it.
		path += " -> " + res.Path
	}
	switch {
	case verb == "print":
		_, err = cmd.OutOrStdout().Write(res.Content)
		return err
	case !res.Changed:
		fmt.Fprintf(w, "gatedexec: %s already says so; nothing changed\n", path)
	case res.Backup != "":
		fmt.Fprintf(w, "gatedexec: %s: %sed the hook (previous file kept as %s)\n", path, verb, res.Backup)
	default:
		fmt.Fprintf(w, "gatedexec: %s: %sed the hook\n", path, verb)
	}
	return nil
}
