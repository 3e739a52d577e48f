// Command gatedexec runs a command only after an exec policy and an OS
// sandbox agree. This package is wiring only: flags in, a library call,
// output out.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	code, show := exitCodeOf(err)
	if show {
		msg := err.Error()
		if !strings.HasPrefix(msg, "gatedexec: ") {
			msg = "gatedexec: " + msg
		}
		fmt.Fprintln(os.Stderr, msg)
	}
	return code
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "gatedexec",
		Short:         "Run commands behind an exec policy and an OS sandbox",
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// An unknown subcommand ("gatedexec rnu") is a usage error (64):
		// with Args set, cobra hands it to this validator instead of
		// failing in its own lookup, which would exit 125.
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q (see gatedexec --help)", args[0], cmd.CommandPath())
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withCode(exitUsage, errors.New("missing command (see gatedexec --help)"))
		},
	}
	root.SetVersionTemplate("gatedexec {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return withCode(exitUsage, err)
	})
	root.AddCommand(
		newAuditCmd(),
		newCheckCmd(),
		newDoctorCmd(),
		newProfilesCmd(),
		newRulesCmd(),
		newSandboxCmd(),
		newRunCmd(),
		newTrustCmd(),
		newVersionCmd(),
		newHookCmd(),
		newHooksCmd(),
		newMCPCmd(),
	)
	return root
}

// usageArgs wraps a cobra positional-args validator so that its failure
// exits 64.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return withCode(exitUsage, err)
		}
		return nil
	}
}
