//go:build darwin

package darwin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// SandboxExec is the only sandbox-exec this backend runs: an absolute
// path, never looked up in PATH.
const SandboxExec = "/usr/bin/sandbox-exec"

// stderrTailMax is how much of the command's stderr is kept for denial
// detection.
const stderrTailMax = 16 << 10

// Runner runs commands under sandbox-exec. The zero value is ready to use.
type Runner struct{}

// Run runs c under its profile and waits for it. The command's exit status
// is in the Result (128+N when killed by signal N); an error means it did
// not run (or gatedexec failed around it).
func (r Runner) Run(ctx context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	if c == nil || c.Profile == nil || len(c.Argv) == 0 {
		return nil, errors.New("darwin: command, profile and argv are required")
	}
	return sandbox.WatchGit(c.Profile, os.Stderr, func() (*sandbox.Result, error) { return r.run(ctx, c) })
}

func (Runner) run(ctx context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	p := c.Profile
	p.MakeMissingDirs()
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	env = sandbox.SetEnv(sandbox.ScrubEnv(env, p.EnvDeny), c.SetEnv)

	prog, err := sandbox.LookPath(c.Argv[0], c.Dir, env)
	if err != nil {
		return nil, err
	}
	res := &sandbox.Result{}
	argv := append([]string{prog}, c.Argv[1:]...)
	var proxy *egress.Local
	if p.Network == sandbox.NetworkProxy {
		// Without the seatbelt the command would reach every host:
		// proxy mode never runs unenforced, best effort or not.
		if _, err := os.Stat(SandboxExec); err != nil {
			return nil, fmt.Errorf("darwin: network mode proxy: %s: %w", SandboxExec, sandbox.ErrLayerUnavailable)
		}
		if proxy, err = egress.StartLocal(ctx, &egress.Proxy{Policy: &p.Hosts, Ask: c.Net.Ask, Record: c.Net.Record}); err != nil {
			return nil, fmt.Errorf("darwin: %w", err)
		}
		defer func() {
			if d := proxy.Stop(); res != nil {
				res.Denied = sandbox.NetDenials(d)
			}
		}()
		env = egress.ProxyEnv(env, proxy.Port())
		res.Layers = append(res.Layers, sandbox.LayerEgress)
	}
	if !p.Unrestricted {
		switch _, err := os.Stat(SandboxExec); {
		case err == nil:
			var pol *Policy
			if proxy != nil {
				pol, err = GenerateProxied(p, proxy.Port(), HostResolver)
			} else {
				pol, err = Generate(p)
			}
			if err != nil {
				return nil, fmt.Errorf("darwin: %w", err)
			}
			head := append([]string{SandboxExec, "-p", pol.Text}, pol.Args()...)
			argv = append(append(head, "--"), argv...)
			res.Layers = append(res.Layers, LayerSeatbelt)
		case p.Enforcement == sandbox.BestEffort:
			res.Missing = append(res.Missing, LayerSeatbelt)
		default:
			return nil, fmt.Errorf("darwin: %s: %w", SandboxExec, sandbox.ErrLayerUnavailable)
		}
	}
	lim := rlimitArgs(p.Limits)
	if len(lim) > 0 {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("darwin: rlimits need the gatedexec binary: %w", err)
		}
		argv = append(append(append([]string{self}, lim...), "--"), argv...)
		res.Layers = append(res.Layers, sandbox.LayerRlimits)
	}

	cmd := &exec.Cmd{Path: argv[0], Args: argv, Env: env, Dir: c.Dir, Stdin: c.Stdin, Stdout: c.Stdout}
	if len(lim) > 0 {
		cmd.Args[0] = helperArg0 // selects the helper in this package's init
	}
	var tail *sandbox.TailBuffer
	switch {
	case c.NoStderrTail:
		cmd.Stderr = c.Stderr
	case c.Stderr != nil:
		tail = &sandbox.TailBuffer{Max: stderrTailMax}
		cmd.Stderr = io.MultiWriter(c.Stderr, tail)
	default:
		tail = &sandbox.TailBuffer{Max: stderrTailMax}
		cmd.Stderr = tail
	}
	// A new session (or at least a process group) so that the whole tree
	// can be signalled and cannot reach the caller's terminal via TIOCSTI.
	if p.NoSetsid {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		res.Layers = append(res.Layers, sandbox.LayerSetsid)
	}

	sup := &sandbox.Supervisor{Timeout: p.Limits.Timeout, ForwardSignals: c.ForwardSignals, Watch: c.Signals}
	start := time.Now()
	timedOut, err := sup.Run(ctx, cmd, func() error {
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("darwin: start %s: %w", c.Argv[0], err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.TimedOut = timedOut
	res.Duration = time.Since(start)
	res.StderrTail = tail.Bytes()
	res.ExitCode, res.Signal = sandbox.ExitStatus(cmd.ProcessState)
	return res, nil
}
