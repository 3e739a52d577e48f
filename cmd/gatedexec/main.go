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

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	// The CPUs the entry point bound the runtime's start to given back,
	// and one Go processor kept for run and sandbox, at initialisation.
	_ "github.com/gatedexec/gatedexec/internal/oneproc"
)

// main exits through exitunmap: the caller has the status before the
// kernel has unmapped gatedexec's memory, and before what a run left to
// the exit is done.
func main() {
	var leave exitunmap.Leave
	leave.Exit(run(os.Args[1:], &leave))
}

func run(args []string, leave *exitunmap.Leave) int {
	root := newRootCmdFor(args, leave)
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

// subcommands are gatedexec's commands in the order help lists them, each
// with the constructor that builds it, flags and help text included, given
// the process's exit: run and sandbox may leave work to it, the others
// take no part in it (plain).
var subcommands = []struct {
	name  string
	build func(*exitunmap.Leave) *cobra.Command
}{
	{"audit", plain(newAuditCmd)},
	{"check", plain(newCheckCmd)},
	{"doctor", plain(newDoctorCmd)},
	{"profiles", plain(newProfilesCmd)},
	{"rules", plain(newRulesCmd)},
	{"sandbox", newSandboxCmd},
	{"run", newRunCmd},
	{"trust", plain(newTrustCmd)},
	{"version", plain(newVersionCmd)},
	{"hook", plain(newHookCmd)},
	{"hooks", plain(newHooksCmd)},
	{"mcp", plain(newMCPCmd)},
}

// plain is the constructor of a subcommand that leaves nothing to the exit.
func plain(build func() *cobra.Command) func(*exitunmap.Leave) *cobra.Command {
	return func(*exitunmap.Leave) *cobra.Command { return build() }
}

// newRootCmd builds the whole command tree, whose runs leave nothing to
// the exit.
func newRootCmd() *cobra.Command { return newRootCmdFor(nil, nil) }

// newRootCmdFor builds the command tree for the command line args. When
// args[0] names a subcommand, only that one is built: every start pays for
// the tree it builds (a subcommand's flags and help text, cobra's
// completion command), and a run, sandbox, check or hook start needs none
// of the others. Anything else (no arguments, a flag first, help,
// completion, a typo to suggest a command for) gets the whole tree.
//
// leave is the process's exit, which run and sandbox may leave work to
// (nil: none).
func newRootCmdFor(args []string, leave *exitunmap.Leave) *cobra.Command {
	root := newBareRoot()
	if len(args) > 0 {
		for _, c := range subcommands {
			if c.name == args[0] {
				// Only "completion" runs cobra's completion command, and
				// the subcommand named is not it.
				root.CompletionOptions.DisableDefaultCmd = true
				root.AddCommand(c.build(leave))
				return root
			}
		}
	}
	for _, c := range subcommands {
		root.AddCommand(c.build(leave))
	}
	return root
}

// newBareRoot builds the root command without its subcommands.
func newBareRoot() *cobra.Command {
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
