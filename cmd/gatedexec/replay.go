package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/auditlog"
	"github.com/gatedexec/gatedexec/gate"
)

func newRulesReplayCmd() *cobra.Command {
	var (
		rules     []string
		all, json bool
	)
	cmd := &cobra.Command{
		Use:   "replay -r NEW_RULES [-r ...] LOG...",
		Short: "Judge every recorded command again under new rules and say what changed",
		Long: `Replay judges each decision recorded in the audit logs ("-" is stdin) under the
rules files given with -r alone, and prints those whose decision changed (all of
them with --all), then a summary of what became stricter and what looser. It
exits 1 when anything became looser, so that CI on a policy repository can stop
a change that lets more through. The logs are only read.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, logs []string) error {
			if len(rules) == 0 {
				return withCode(exitUsage, errors.New("rules replay: no rules given (-r NEW_RULES)"))
			}
			return runReplay(cmd.OutOrStdout(), cmd.ErrOrStderr(), rules, logs, all, json)
		},
	}
	stringsVarP(cmd.Flags(), &rules, "rules", "r", "the new rules: a file or directory of *.rules (repeatable)")
	cmd.Flags().BoolVar(&all, "all", false, "print every decision replayed, not only those that changed")
	cmd.Flags().BoolVar(&json, "json", false, "print JSON lines: one per decision printed, then the summary")
	return cmd
}

func runReplay(stdout, stderr io.Writer, rules, logs []string, all, asJSON bool) error {
	var werr error
	sum, err := gate.Replay(rules, logs, os.Stdin, func(r gate.Replayed) {
		if r.Change == "same" && !all || werr != nil {
			return
		}
		if asJSON {
			werr = writeJSONLine(stdout, r, false)
			return
		}
		_, werr = fmt.Fprintf(stdout, "%s:%d: %s -> %s (%s): %s\n", r.File, r.Line, r.Recorded, r.Now, r.Change, printable(strings.Join(r.Argv, " ")))
	}, func(p auditlog.Problem) {
		fmt.Fprintf(stderr, "gatedexec: rules replay: %v (skipped)\n", p)
	})
	switch {
	case errors.Is(err, os.ErrNotExist):
		return withCode(exitUsage, fmt.Errorf("rules replay: %w", err))
	case err != nil:
		return engineExit(err)
	case werr != nil:
		return withCode(exitInternal, werr)
	}
	if asJSON {
		werr = writeJSONLine(stdout, sum, false)
	} else {
		_, werr = fmt.Fprintf(stdout, "%d decisions replayed: %d same, %d stricter, %d looser\n", sum.Decisions, sum.Same, sum.Stricter, sum.Looser)
	}
	if werr != nil {
		return withCode(exitInternal, werr)
	}
	if sum.Looser > 0 {
		return withCode(1, fmt.Errorf("rules replay: %d decisions became looser", sum.Looser))
	}
	return nil
}

// printable escapes what a terminal would interpret in a recorded
// command.
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}
