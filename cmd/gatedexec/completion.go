package main

import (
	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"
)

// registerCompletions completes the values of the flags cmd has among
// --profile, --approval-policy and --approver in the shell (cobra's
// completion command generates the scripts). Profiles are those run would
// find from the current directory: the built-ins and the configured ones.
func registerCompletions(cmd *cobra.Command) {
	complete := func(flag string, f func() []string) {
		if cmd.Flags().Lookup(flag) == nil {
			return
		}
		cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return f(), cobra.ShellCompDirectiveNoFileComp
		})
	}
	complete("approval-policy", func() []string {
		return gate.ApprovalPolicies()
	})
	complete("approver", func() []string { return []string{"tty", "deny", "defer", "exec:"} })
	if cmd.Flags().Lookup("profile") != nil {
		cmd.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			pl, err := (&placeFlags{}).resolve()
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			l, err := profileLoaderOf(pl)
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			infos, err := l.List()
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			var names []string
			for _, i := range infos {
				names = append(names, i.Name+"\t"+i.Description)
			}
			// A profile may also be a .toml file.
			return names, cobra.ShellCompDirectiveDefault
		})
	}
}
