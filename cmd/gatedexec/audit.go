package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/auditlog"
	"github.com/gatedexec/gatedexec/gate"
)

type auditFlags struct {
	decisions, profiles []string
	denials             string
	since, session, cmd string
	json, summary       bool
	suggest             bool
	top                 int
}

func newAuditCmd() *cobra.Command {
	var f auditFlags
	cmd := &cobra.Command{
		Use:   "audit [flags] [LOG...]",
		Short: "Read audit logs: filter, summarise, and suggest rule and profile changes",
		Long: `Audit reads JSON-lines audit logs (default: the audit_log of the configuration;
"-" is stdin), streaming, and never writes them. A torn or invalid line is
reported with its file:line on stderr and skipped.

By default it prints a table of the records the filters select; --json prints
those records' lines unchanged, --summary counts them, and --suggest prints the
narrowest .rules and profile TOML that would have allowed the recorded prompts
and sandbox denials, for review: nothing is applied.`,
		RunE: func(cmd *cobra.Command, logs []string) error {
			return runAudit(cmd, &f, logs)
		},
	}
	fs := cmd.Flags()
	stringsVarP(fs, &f.decisions, "decision", "", "keep records with this decision (allow, prompt, forbidden) or outcome (approved, denied, ...); repeatable")
	stringsVarP(fs, &f.profiles, "profile", "", "keep records under this profile; repeatable")
	fs.StringVar(&f.denials, "denials", "", "keep records with sandbox denials (of this kind: fs-write, fs-read, net-connect, ...)")
	fs.Lookup("denials").NoOptDefVal = "any"
	fs.StringVar(&f.since, "since", "", "keep records from this time on: RFC 3339, a date (2006-01-02) or a duration back (24h)")
	fs.StringVar(&f.session, "session", "", "keep the records of this session id")
	fs.StringVar(&f.cmd, "command", "", "keep records whose command line matches this glob (* and ?)")
	fs.BoolVar(&f.json, "json", false, "print the selected records as JSON lines (with --summary: the summary as JSON)")
	fs.BoolVar(&f.summary, "summary", false, "print counts by decision, outcome and profile, top denied paths and hosts, top prompted commands")
	fs.BoolVar(&f.suggest, "suggest", false, "print the narrowest rules and profiles that would have allowed the recorded prompts and denials (never applied)")
	fs.IntVar(&f.top, "top", 10, "length of the summary's top lists")
	return cmd
}

func runAudit(cmd *cobra.Command, f *auditFlags, logs []string) error {
	q := auditlog.Query{Top: f.top, Filter: auditlog.Filter{Decisions: f.decisions, Profiles: f.profiles, Denials: f.denials, Session: f.session, Command: f.cmd}}
	for _, d := range f.decisions {
		if err := auditlog.CheckDecision(d); err != nil {
			return withCode(exitUsage, err)
		}
	}
	if f.since != "" {
		t, err := auditlog.ParseSince(f.since, time.Now())
		if err != nil {
			return withCode(exitUsage, err)
		}
		q.Filter.Since = t
	}
	switch {
	case f.summary && f.suggest:
		return withCode(exitUsage, errors.New("audit: --summary and --suggest are mutually exclusive"))
	case f.suggest && f.json:
		return withCode(exitUsage, errors.New("audit: --suggest prints rules and TOML, not JSON"))
	case f.summary && f.json:
		q.Output = auditlog.SummaryJSON
	case f.summary:
		q.Output = auditlog.SummaryText
	case f.suggest:
		q.Output = auditlog.Suggest
	case f.json:
		q.Output = auditlog.JSONLines
	}
	pl, err := (&placeFlags{}).resolve()
	if err != nil {
		return err
	}
	var cfg *gate.AuditConfig
	if len(logs) == 0 || f.suggest {
		// Where a suggestion counts is the configuration's to say: one
		// that cannot be read would leave it unsaid, and misleading.
		if cfg, err = gate.LoadAuditConfig(pl); err != nil {
			return engineExit(err)
		}
	}
	if len(logs) == 0 {
		if cfg.Log == "" {
			return withCode(exitUsage, errors.New("audit: no LOG given and no audit_log configured"))
		}
		logs = []string{cfg.Log}
	}
	if f.suggest {
		q.Placement = cfg.Placement
		q.Profile = func(name string) ([]string, []string, bool) {
			p, err := cfg.Profiles.Resolve(name)
			if err != nil {
				return nil, nil, false
			}
			return p.Write, p.Read, true
		}
	}
	if _, err := q.Run(logs, os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return withCode(exitUsage, fmt.Errorf("audit: %w", err))
		}
		return withCode(exitInternal, fmt.Errorf("audit: %w", err))
	}
	return nil
}
