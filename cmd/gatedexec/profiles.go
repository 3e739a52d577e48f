package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"

	"github.com/gatedexec/gatedexec/profiles"
	"github.com/gatedexec/gatedexec/sandbox"
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

// profileView is the JSON form of a resolved profile.
type profileView struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Enforcement  string   `json:"enforcement"`
	Unrestricted bool     `json:"unrestricted"`
	ReadAll      bool     `json:"read_all"`
	Read         []string `json:"read"`
	Write        []string `json:"write"`
	Protect      []string `json:"protect"`
	Hide         []string `json:"hide"`
	PrivateTmp   []string `json:"private_tmp"`
	Network      string   `json:"network"`
	Sockets      []string `json:"unix_sockets_reachable"`
	UnixSockets  string   `json:"unix_sockets"`
	EnvDeny      []string `json:"env_deny"`
	Setsid       bool     `json:"setsid"`
	PIDNamespace bool     `json:"pid_namespace"`
	Limits       struct {
		NoFile  uint64 `json:"nofile,omitempty"`
		NProc   uint64 `json:"nproc,omitempty"`
		FSize   uint64 `json:"fsize,omitempty"`
		CPU     uint64 `json:"cpu,omitempty"`
		AS      uint64 `json:"as,omitempty"`
		Memory  string `json:"memory,omitempty"`
		Timeout string `json:"timeout,omitempty"`
	} `json:"limits"`
	Workspace string `json:"workspace"`
	Cwd       string `json:"cwd"`
	// Layers are what the sandbox would apply on this host; Missing the
	// layers the profile needs that the host lacks.
	Layers  []string `json:"layers"`
	Missing []string `json:"missing"`
}

func viewOf(p *sandbox.Profile, pl gate.Place) profileView {
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	v := profileView{
		Name: p.Name, Description: p.Description, Enforcement: string(p.Enforcement),
		Unrestricted: p.Unrestricted, ReadAll: p.ReadAll,
		Read: nonNil(p.Read), Write: nonNil(p.Write), Protect: nonNil(p.Protect), Hide: nonNil(p.Hide),
		PrivateTmp: nonNil(p.PrivateTmp), Sockets: nonNil(p.Sockets),
		Network: string(p.Network), UnixSockets: "deny", EnvDeny: nonNil(p.EnvDeny), Setsid: !p.NoSetsid,
		PIDNamespace: p.IsolatesPIDs(), Workspace: pl.Workspace, Cwd: pl.Cwd,
	}
	if p.UnixSockets {
		v.UnixSockets = "allow"
	}
	layers, missing := gate.HostLayers(p)
	v.Layers, v.Missing = nonNil(layers), nonNil(missing)
	l := p.Limits
	v.Limits.NoFile, v.Limits.NProc, v.Limits.FSize, v.Limits.CPU, v.Limits.AS = l.NoFile, l.NProc, l.FSize, l.CPU, l.AS
	switch {
	case l.MemoryPercent > 0:
		v.Limits.Memory = strconv.Itoa(l.MemoryPercent) + "%"
	case l.Memory > 0:
		v.Limits.Memory = strconv.FormatUint(l.Memory, 10)
	}
	if l.Timeout > 0 {
		v.Limits.Timeout = l.Timeout.String()
	}
	return v
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
				return printSBPL(cmd.OutOrStdout(), p, asJSON)
			}
			v := viewOf(p, pl)
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

func printProfile(w io.Writer, v profileView) {
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
	list("hide", v.Hide)
	list("private_tmp", v.PrivateTmp)
	fmt.Fprintf(w, "network: %s\nunix_sockets: %s\n", v.Network, v.UnixSockets)
	list("unix_sockets_reachable", v.Sockets)
	fmt.Fprintf(w, "env_deny: %s\n", strings.Join(v.EnvDeny, " "))
	fmt.Fprintf(w, "setsid: %t\npid_namespace: %t\n", v.Setsid, v.PIDNamespace)
	l := v.Limits
	var lims []string
	for _, x := range []struct {
		k string
		n uint64
	}{{"nofile", l.NoFile}, {"nproc", l.NProc}, {"fsize", l.FSize}, {"cpu", l.CPU}, {"as", l.AS}} {
		if x.n > 0 {
			lims = append(lims, fmt.Sprintf("%s=%d", x.k, x.n))
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
as "FILE:LINE: message (error|warning)", and "ok FILE" on stdout for a file
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
		for _, p := range l.Lint(file, unenforceable) {
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

// unenforceable lists the layers p needs that this host's sandbox cannot
// apply.
func unenforceable(p *sandbox.Profile) []string {
	_, missing := gate.HostLayers(p)
	var out []string
	for _, m := range missing {
		msg := "needs " + m
		if p.Enforcement == sandbox.Strict {
			msg += " (strict: the command would not run)"
		}
		out = append(out, msg)
	}
	return out
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
