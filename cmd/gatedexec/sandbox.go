package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/internal/atomicfile"
	"github.com/gatedexec/gatedexec/internal/exitunmap"
)

func newSandboxCmd(leave *exitunmap.Leave) *cobra.Command {
	var (
		pf         placeFlags
		profile    string
		timeout    time.Duration
		resultFile string
		asJSON     bool
		pretty     bool
	)
	cmd := &cobra.Command{
		Use:   "sandbox [flags] -- CMD [ARG...]",
		Short: "Run a command in a sandbox profile (no rules, no approval)",
		Args:  usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("timeout") && timeout <= 0 {
				return withCode(exitUsage, fmt.Errorf("--timeout %v: want a positive duration", timeout))
			}
			if pretty && !asJSON {
				return withCode(exitUsage, errors.New("--pretty only applies to --json"))
			}
			// Checked before the command runs: a 125 after it ran would
			// make a caller that retries run it twice.
			result, err := openResultFile(resultFile)
			if err != nil {
				return err
			}
			defer result.Close()
			res, err := runSandbox(&pf, profile, timeout, resultFile, args, leave)
			w := cmd.ErrOrStderr()
			var out any
			if res != nil {
				out = res
			} else if err != nil {
				code, _ := exitCodeOf(err)
				out = failureResult{Error: err.Error(), Status: code}
			}
			if result != nil {
				if werr := writeFileAtomic(result, out); werr != nil {
					if res == nil {
						return withCode(exitInternal, errors.Join(err, werr))
					}
					fmt.Fprintf(w, "gatedexec: the command ran (exit %d) but its result was not written: %v\n", res.ExitCode, werr)
				}
			}
			if asJSON {
				writeJSONLine(w, out, pretty)
			}
			switch {
			case err != nil:
				return err
			case res.TimedOut:
				return withCode(exitTimedOut, fmt.Errorf("the command timed out after %v and was killed", res.Duration.Round(time.Millisecond)))
			case res.ExitCode != 0:
				return withCode(res.ExitCode, nil)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	// Flags end at the command, as for run and check: "sandbox ls -d /"
	// runs ls -d /.
	fs.SetInterspersed(false)
	pf.register(fs)
	fs.StringVarP(&profile, "profile", "p", gate.DefaultProfile, "sandbox profile: a name or a .toml file")
	fs.DurationVar(&timeout, "timeout", 0, "kill the command's process group after this long (exit 124)")
	fs.StringVar(&resultFile, "result-file", "", "write the result as JSON to this file")
	fs.BoolVar(&asJSON, "json", false, "print the result as one line of JSON on stderr after the command")
	fs.BoolVar(&pretty, "pretty", false, "with --json, indent the JSON")
	registerCompletions(cmd)
	return cmd
}

// runSandbox runs args in the profile named profile, leaving work to
// leave (nil: none); the error carries its exit status.
func runSandbox(pf *placeFlags, profile string, timeout time.Duration, resultFile string, args []string, leave *exitunmap.Leave) (*gate.SandboxResult, error) {
	// First, so that subscribing overlaps resolving the profile.
	sigs := gate.WatchSignals()
	pl, err := pf.resolve()
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	res, err := gate.Sandbox(context.Background(), gate.SandboxRequest{
		Place: pl, Argv: args, Env: os.Environ(), Profile: profile, Timeout: timeout, ResultFile: resultFile,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, ForwardSignals: true, Signals: sigs, Version: version,
		LeaveToExit: leave,
	})
	return res, engineExit(err)
}

// openResultFile opens the directory of a --result-file before the
// command runs ("" is none): a file that cannot be written fails the run
// before it has had any effect (a caller retrying on 125 would run it
// twice), and the write after it goes into that directory by descriptor,
// wherever the command has moved it or whatever link it has put there.
func openResultFile(path string) (*atomicfile.Target, error) {
	if path == "" {
		return nil, nil
	}
	t, err := atomicfile.Open(path)
	if err != nil {
		return nil, withCode(exitInternal, fmt.Errorf("--result-file: %w", err))
	}
	return t, nil
}

// writeFileAtomic writes v as JSON to the result file t.
func writeFileAtomic(t *atomicfile.Target, v any) error {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		return fmt.Errorf("result file: %w", err)
	}
	if err := t.Write(buf.Bytes(), false); err != nil {
		return fmt.Errorf("result file: %w", err)
	}
	return nil
}
