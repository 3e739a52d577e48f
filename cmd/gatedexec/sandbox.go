package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// sandboxResult is the JSON written by `sandbox --json` and --result-file.
type sandboxResult struct {
	Profile    string   `json:"profile"`
	Layers     []string `json:"layers"`
	Missing    []string `json:"missing,omitempty"`
	ExitCode   int      `json:"exit_code"`
	Signal     *int     `json:"signal"`
	TimedOut   bool     `json:"timed_out,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	Tampered   []string `json:"tampered,omitempty"`
}

func newSandboxCmd() *cobra.Command {
	var (
		pf         placeFlags
		profile    string
		timeout    time.Duration
		resultFile string
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "sandbox [flags] -- CMD [ARG...]",
		Short: "Run a command in a sandbox profile (no rules, no approval)",
		Args:  usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			pl, err := pf.resolve()
			if err != nil {
				return withCode(exitUsage, err)
			}
			cfg, dirs, err := layers(pl, setting{})
			if err != nil {
				return err
			}
			p, err := profileLoader(pl, cfg).Resolve(profile)
			if err != nil {
				return profileError(err)
			}
			if timeout > 0 {
				p.Limits.Timeout = timeout
			}
			// No rules are read here, but the command must not be able to
			// write the ones a later run reads.
			control, err := controlPaths(dirs)
			if err != nil {
				return err
			}
			p = sandbox.WithControl(p, control)
			res, err := hostRunner().Run(context.Background(), &sandbox.Command{
				Argv: args, Dir: pl.Cwd, Env: os.Environ(),
				Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
				Profile: p,
			})
			if res != nil {
				out := sandboxResult{Profile: p.Name, Layers: res.Layers, Missing: res.Missing,
					ExitCode: res.ExitCode, TimedOut: res.TimedOut, DurationMS: res.Duration.Milliseconds(), Tampered: res.Tampered}
				if out.Layers == nil {
					out.Layers = []string{}
				}
				if res.Signal != 0 {
					out.Signal = &res.Signal
				}
				if resultFile != "" {
					if werr := writeFileAtomic(resultFile, out); werr != nil {
						return withCode(exitInternal, werr)
					}
				}
				if asJSON {
					if werr := writeJSON(cmd.ErrOrStderr(), out); werr != nil {
						return withCode(exitInternal, werr)
					}
				}
			}
			if err != nil {
				return runnerError(err)
			}
			if res.ExitCode != 0 {
				return withCode(res.ExitCode, nil)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	fs.StringVarP(&profile, "profile", "p", "workspace-write", "sandbox profile: a name or a .toml file")
	fs.DurationVar(&timeout, "timeout", 0, "kill the command's process group after this long")
	fs.StringVar(&resultFile, "result-file", "", "write the result as JSON to this file")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON on stderr after the command")
	return cmd
}

// writeFileAtomic writes v as JSON to a temporary file beside path and
// renames it over path, so readers never see a partial result.
func writeFileAtomic(path string, v any) error {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		return fmt.Errorf("result file %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), false); err != nil {
		return fmt.Errorf("result file: %w", err)
	}
	return nil
}
