package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"

	"github.com/gatedexec/gatedexec/profiles"
)

// profileError gives a profile loading error exit status 78.
func profileError(err error) error {
	return withCode(exitConfig, err)
}

func newProfilesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List, show and lint sandbox profiles",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return withCode(exitUsage, errors.New("profiles: missing subcommand (list, show, lint)"))
		},
	}
	cmd.AddCommand(newProfilesListCmd(), newProfilesShowCmd(), newProfilesLintCmd())
	return cmd
}

func newProfilesListCmd() *cobra.Command {
	var (
		pf     placeFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in and configured profiles",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The workspace's trusted profiles are listed too, as show
			// and run find them.
			pl, err := pf.resolve()
			if err != nil {
				return err
			}
			l, err := profileLoaderOf(pl)
			if err != nil {
				return err
			}
			infos, err := l.List()
			if err != nil {
				return profileError(err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, infos)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION")
			for _, i := range infos {
				src := i.Source
				if i.Overrides != "" {
					src += " (overrides " + i.Overrides + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", i.Name, src, i.Description)
			}
			return tw.Flush()
		},
	}
	pf.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newProfilesShowCmd() *cobra.Command {
	var (
		asJSON bool
		sbpl   bool
		pf     placeFlags
	)
	cmd := &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Print a profile resolved for this host and workspace",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			pl, err := pf.resolve()
			if err != nil {
				return err
			}
			l, err := profileLoaderOf(pl)
			if err != nil {
				return err
			}
			p, err := l.Resolve(args[0])
			if err != nil {
				return profileError(err)
			}
			if sbpl {
				pol, err := gate.SBPL(p)
				if err != nil {
					return withCode(exitConfig, fmt.Errorf("profiles show: %w", err))
				}
				return printSBPL(cmd.OutOrStdout(), pol, asJSON)
			}
			v := gate.ViewProfile(p, pl)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			printProfile(cmd.OutOrStdout(), v)
			return nil
		},
	}
	pf.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&sbpl, "sbpl", false, "print the macOS sandbox-exec profile and its -D parameters")
	return cmd
}

func printProfile(w io.Writer, v gate.ProfileView) {
	fmt.Fprintf(w, "name: %s\n", v.Name)
	fmt.Fprintf(w, "description: %s\n", v.Description)
	fmt.Fprintf(w, "workspace: %s\ncwd: %s\n", v.Workspace, v.Cwd)
	fmt.Fprintf(w, "enforcement: %s\n", v.Enforcement)
	if v.Unrestricted {
		fmt.Fprintln(w, "unrestricted: true")
	}
	list := func(key string, paths []string) {
		fmt.Fprintf(w, "%s:", key)
		if len(paths) == 0 {
			fmt.Fprintln(w, " (none)")
			return
		}
		fmt.Fprintln(w)
		for _, p := range paths {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	if v.ReadAll {
		fmt.Fprintln(w, "read: (all)")
	} else {
		list("read", v.Read)
	}
	list("write", v.Write)
	list("protect", v.Protect)
	list("watch", v.Watch)
	list("hide", v.Hide)
	list("private_tmp", v.PrivateTmp)
	fmt.Fprintf(w, "network: %s\nunix_sockets: %s\n", v.Network, v.UnixSockets)
	list("unix_sockets_reachable", v.Sockets)
	if v.Network == "proxy" {
		hosts := make([]string, len(v.Hosts))
		for i, h := range v.Hosts {
			hosts[i] = fmt.Sprintf("%-5s %s  (%s)", h.Decision, h.Pattern, h.Source)
		}
		list("hosts", hosts)
		list("connect_to", v.ConnectTo)
	}
	fmt.Fprintf(w, "env_deny: %s\n", strings.Join(v.EnvDeny, " "))
	fmt.Fprintf(w, "setsid: %t\npid_namespace: %t\n", v.Setsid, v.PIDNamespace)
	l := v.Limits
	var lims []string
	for _, r := range v.Rlimits {
		if r.Value > 0 {
			lims = append(lims, fmt.Sprintf("%s=%d", r.Name, r.Value))
		}
	}
	if l.Timeout != "" {
		lims = append(lims, "timeout="+l.Timeout)
	}
	if l.Memory != "" {
		lims = append(lims, "memory="+l.Memory)
	}
	if len(lims) == 0 {
		lims = []string{"(none)"}
	}
	fmt.Fprintf(w, "limits: %s\n", strings.Join(lims, " "))
	fmt.Fprintf(w, "layers: %s\n", strings.Join(v.Layers, " "))
	if len(v.Missing) > 0 {
		fmt.Fprintf(w, "missing: %s\n", strings.Join(v.Missing, " "))
	}
}

func newProfilesLintCmd() *cobra.Command {
	var pf placeFlags
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check profile files: unknown keys, missing paths, what this host cannot enforce",
		Long: `Lint checks each FILE and prints its problems on stderr, one a line,
as "FILE:LINE: message (error|warning)" (FILE:LINE:COL where the column
is known), and "ok FILE" on stdout for a file
without errors. It exits 78 if any FILE has an error; warnings alone exit 0.`,
		Args: func(_ *cobra.Command, files []string) error {
			if len(files) == 0 {
				return withCode(exitUsage, errors.New("profiles lint: no profile file given (usage: gatedexec profiles lint FILE...)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			pl, err := pf.resolve()
			if err != nil {
				return err
			}
			l, err := profileLoaderOf(pl)
			if err != nil {
				return err
			}
			return runProfilesLint(cmd.OutOrStdout(), cmd.ErrOrStderr(), l, files)
		},
	}
	pf.register(cmd.Flags())
	return cmd
}

func runProfilesLint(stdout, stderr io.Writer, l *profiles.Loader, files []string) error {
	failed := 0
	for _, file := range files {
		errs := 0
		for _, p := range l.Lint(file, gate.Unenforceable) {
			fmt.Fprintf(stderr, "gatedexec: %s\n", p)
			if p.Severity == profiles.SevError {
				errs++
			}
		}
		if errs > 0 {
			failed++
			continue
		}
		fmt.Fprintf(stdout, "ok %s\n", file)
	}
	if failed > 0 {
		return withCode(exitConfig, fmt.Errorf("profiles lint: %d of %d failed", failed, len(files)))
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
