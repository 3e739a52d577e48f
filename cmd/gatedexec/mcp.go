//go:build !gatedexec_mcp

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// newMCPCmd is `gatedexec mcp` in the main binary: it becomes the
// gatedexec-mcp beside it (see mcp_server.go), with the same arguments.
func newMCPCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "mcp [flags]",
		Short:              "Serve MCP over stdio with a run_command tool that runs commands through both gates",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			exe, err := os.Executable()
			if err == nil {
				exe, err = filepath.EvalSymlinks(exe)
			}
			if err != nil {
				return withCode(exitInternal, fmt.Errorf("naming the gatedexec binary: %w", err))
			}
			// Only the one beside this binary, never one found in PATH.
			server := filepath.Join(filepath.Dir(exe), mcpBinary)
			if st, err := os.Stat(server); err != nil || !st.Mode().IsRegular() {
				return withCode(exitInternal, fmt.Errorf("mcp: the MCP server %s is not installed beside gatedexec (make build builds both; "+
					"go build -tags gatedexec_mcp -o %s ./cmd/gatedexec)", server, mcpBinary))
			}
			err = syscall.Exec(server, append([]string{server, "mcp"}, args...), os.Environ())
			return withCode(exitInternal, fmt.Errorf("mcp: starting %s: %w", server, err))
		},
	}
}
