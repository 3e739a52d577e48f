package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set by the Makefile with -ldflags "-X main.version=...".
var version = "dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the gatedexec version",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "gatedexec %s\n", versionString())
			return nil
		},
	}
}

// versionString is the version `gatedexec version` and `--version` print:
// the one the Makefile set, else the module's. The build information is
// read only when needed: decoding it costs every start a few tens of
// microseconds, and the root command asks for the version on every start.
func versionString() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

// mcpBinary is the name of the MCP server's binary, beside gatedexec.
const mcpBinary = "gatedexec-mcp"
