package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"

	"github.com/gatedexec/gatedexec/profiles"
)

func newRulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Work with rules files",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return withCode(exitUsage, errors.New("rules: missing subcommand (test, replay)"))
		},
	}
	cmd.AddCommand(newRulesTestCmd(), newRulesReplayCmd())
	return cmd
}

func newRulesTestCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "test FILE...",
		Short: "Load rules files and verify their match/not_match examples",
		Long: `Test loads each FILE (or directory of *.rules files) on its own, which
verifies every match and not_match example, and prints one line per FILE:
"ok FILE (N rules, M examples)". It exits 78 if any FILE fails to load.`,
		Args: func(_ *cobra.Command, files []string) error {
			if len(files) == 0 {
				return withCode(exitUsage, errors.New("rules test: no rules file given (usage: gatedexec rules test FILE...)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			return runRulesTest(cmd.OutOrStdout(), cmd.ErrOrStderr(), files)
		},
	}
}

// runRulesTest reports on every file, not just the first broken one, so
// that one run shows everything to fix.
func runRulesTest(stdout, stderr io.Writer, files []string) error {
	// profile= names are checked against the profiles run would find
	// from here: the built-ins and those of the configuration layers.
	var profiles *profiles.Loader
	pl, err := (&placeFlags{}).resolve()
	if err == nil {
		profiles, err = profileLoaderOf(pl)
	}
	if err != nil {
		return err
	}
	failed := 0
	for _, file := range files {
		n, err := gate.LintRules(file, profiles)
		if err != nil {
			fmt.Fprintf(stderr, "gatedexec: %v\n", err)
			failed++
			continue
		}
		fmt.Fprintf(stdout, "ok %s (%d rules, %d examples)\n", file, n.Rules, n.Examples)
	}
	if failed > 0 {
		return withCode(exitConfig, fmt.Errorf("rules test: %d of %d failed", failed, len(files)))
	}
	return nil
}
