package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/config"
)

func newTrustCmd() *cobra.Command {
	var revoke bool
	cmd := &cobra.Command{
		Use:   "trust [--revoke] [DIR]",
		Short: "Trust (or stop trusting) a workspace's own .gatedexec/ configuration layer",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			pf := placeFlags{}
			if len(args) == 1 {
				pf.cwd = args[0]
			}
			pl, err := pf.resolve()
			if err != nil {
				return err
			}
			store := trustStore(config.DefaultDirs(os.Getenv, userHome(), pl.Workspace))
			if revoke {
				if err := store.Revoke(pl.Workspace); err != nil {
					return withCode(exitInternal, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "no longer trusted: %s\n", pl.Workspace)
				return nil
			}
			d, err := store.Trust(pl.Workspace)
			if err != nil {
				return withCode(exitInternal, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "trusted: %s (.gatedexec digest %s)\n", pl.Workspace, d[:16])
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "stop trusting the workspace")
	return cmd
}
