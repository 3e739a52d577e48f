package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"
)

func newDoctorCmd() *cobra.Command {
	var (
		pf     placeFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show what this host supports and what each built-in profile would get",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			pl, err := pf.resolve()
			if err != nil {
				return withCode(exitUsage, err)
			}
			rep, err := gate.Doctor(pl)
			if err != nil {
				return engineExit(err)
			}
			caps := rep.Host
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, rep)
			}
			yes := func(b bool) string {
				if b {
					return "yes"
				}
				return "no"
			}
			fmt.Fprintf(out, "landlock abi:    %d\n", caps.LandlockABI)
			fmt.Fprintf(out, "seccomp:         %s\n", yes(caps.Seccomp))
			fmt.Fprintf(out, "user namespace:  %s\n", yes(caps.UserNS))
			fmt.Fprintf(out, "mount namespace: %s\n", yes(caps.MountNS))
			fmt.Fprintf(out, "net namespace:   %s\n", yes(caps.NetNS))
			fmt.Fprintf(out, "pid namespace:   %s\n", yes(caps.PIDNS))
			fmt.Fprintf(out, "root:            %s\n", yes(caps.Root))
			if caps.Helper != "" {
				fmt.Fprintf(out, "sandbox helper:  missing: %s\n", caps.Helper)
			}
			for _, dp := range rep.Profiles {
				if dp.Error != "" {
					fmt.Fprintf(out, "profile %s: error: %s\n", dp.Name, dp.Error)
					continue
				}
				fmt.Fprintf(out, "profile %s: layers %s", dp.Name, strings.Join(dp.Layers, ", "))
				if len(dp.Missing) > 0 {
					fmt.Fprintf(out, "; missing %s", strings.Join(dp.Missing, ", "))
				}
				fmt.Fprintln(out)
			}
			return nil
		},
	}
	pf.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	return cmd
}
