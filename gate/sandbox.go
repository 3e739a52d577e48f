package gate

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gatedexec/gatedexec/internal/exitunmap"
	"github.com/gatedexec/gatedexec/sandbox"
)

// SandboxRequest is one command to run in a profile, with no rules and no
// approval (`gatedexec sandbox`).
type SandboxRequest struct {
	Place   Place
	Argv    []string
	Env     []string
	Profile string
	Timeout time.Duration
	// ResultFile, when it already exists, is kept from the command.
	ResultFile     string
	Stdin          *os.File
	Stdout, Stderr *os.File
	// Runner is the sandbox backend; nil is this host's.
	Runner sandbox.Runner
	// ForwardSignals passes gatedexec's signals on to the command, as
	// Request.ForwardSignals; Signals as Request.Signals.
	ForwardSignals bool
	Signals        *sandbox.SignalWatch
	// Version identifies this build in the profile cache, as
	// Config.Version.
	Version string
	// LeaveToExit is Config.LeaveToExit.
	LeaveToExit *exitunmap.Leave
}

// SandboxResult is the outcome of Sandbox, in the JSON of `sandbox --json`.
type SandboxResult struct {
	Profile    string   `json:"profile"`
	Layers     []string `json:"layers"`
	Missing    []string `json:"missing,omitempty"`
	ExitCode   int      `json:"exit_code"`
	Signal     *int     `json:"signal"`
	TimedOut   bool     `json:"timed_out,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	Tampered   []string `json:"tampered,omitempty"`
	// Denials are the hosts the network proxy refused (network mode
	// "proxy"); `sandbox` reads nothing from the command's stderr.
	Denials []sandbox.Denial `json:"denials,omitempty"`
	// Duration is how long the command ran.
	Duration time.Duration `json:"-"`
}

// Sandbox runs req.Argv in the profile req.Profile. The result is non-nil
// when the command ran; errors wrap ErrConfig (a bad profile), ErrManaged
// (under a managed layer, which only gatedexec run can satisfy),
// ErrNotFound, ErrCannotExec or sandbox.ErrLayerUnavailable.
func Sandbox(ctx context.Context, req SandboxRequest) (*SandboxResult, error) {
	cfg, err := loadLayers(os.Getenv, req.Place.Workspace, setting{})
	if err != nil {
		return nil, err
	}
	if m := cfg.Managed; m != nil {
		// Run without rules, approval or audit record, any command
		// would pass the managed layer's prompt and forbidden rules
		// unrecorded: the ceiling would be one command away.
		return nil, fmt.Errorf("%w: gatedexec sandbox runs a command without rules, approval or audit record, which the managed layer %s does not allow: use gatedexec run -p PROFILE", ErrManaged, m.Dir)
	}
	runner := req.Runner
	if runner == nil {
		runner = hostRunner(false, req.LeaveToExit)
	}
	c := &sandbox.Command{
		Argv: req.Argv, Dir: req.Place.Cwd, Env: req.Env,
		Stdin: req.Stdin, Stdout: req.Stdout, Stderr: req.Stderr,
		ForwardSignals: req.ForwardSignals, Signals: req.Signals,
		// Its result reports no denial read from stderr.
		NoStderrTail: true,
	}
	build := cacheBuild(os.Getenv, cfg.Dirs, req.Version)
	l := profileLoader(os.Getenv, req.Place, cfg, build)
	defer startEarly(runner, c, earlyID(req.Profile, req.Place), sandbox.BuildCache{Dir: l.CacheDir, Build: l.CacheBuild})()
	p, err := l.Resolve(req.Profile)
	if err != nil {
		err = configErr(err)
	} else if !p.Unrestricted {
		// No rules are read here, but the command must not be able to
		// write the ones a later run reads. An unrestricted profile
		// keeps nothing from it (WithControl) and watches no git: the
		// paths, 0.1 ms of a full-access run, would go unused.
		var control []string
		var scanCache string
		if control, scanCache, err = controlPaths(os.Getenv, cfg.Dirs, profileFile(req.Profile), existing(req.ResultFile)); err == nil {
			p = sandbox.WithScanCache(sandbox.WithControl(p, control), scanCache)
		}
	}
	if err != nil {
		return nil, err
	}
	if req.Timeout > 0 {
		p.Limits.Timeout = req.Timeout
	}
	c.Profile = p
	res, err := runner.Run(ctx, c)
	if res == nil {
		if err == nil {
			err = fmt.Errorf("sandbox: no result")
		}
		return nil, err
	}
	r := &SandboxResult{Profile: p.Name, Layers: res.Layers, Missing: res.Missing,
		ExitCode: res.ExitCode, TimedOut: res.TimedOut, DurationMS: res.Duration.Milliseconds(), Tampered: res.Tampered, Duration: res.Duration,
		Denials: res.Denied}
	if r.Layers == nil {
		r.Layers = []string{}
	}
	if res.Signal != 0 {
		sig := res.Signal
		r.Signal = &sig
	}
	return r, err
}

// startEarly begins c's run under the profile id before its profile is
// read, when runner can (sandbox.EarlyStarter): what the run starts with
// depends on little of the profile, kept from its last run in bc. The
// returned func ends what no Run took.
func startEarly(runner sandbox.Runner, c *sandbox.Command, id string, bc sandbox.BuildCache) (end func()) {
	early, ok := runner.(sandbox.EarlyStarter)
	if !ok {
		return func() {}
	}
	early.StartEarly(c, id, bc)
	return early.EndEarly
}

// earlyID names the profile name (a name or a file) resolves to in pl,
// for sandbox.EarlyStarter: the same name in the same workspace and
// directory resolves to the same profile, as long as their files do.
func earlyID(name string, pl Place) string {
	return name + "\x00" + pl.Workspace + "\x00" + pl.Cwd
}

// SignalWatch is the CLI's subscription to the signals its command is
// forwarded (sandbox.SignalWatch): its other subscriptions to them go
// through it (Notify, Stop).
type SignalWatch = sandbox.SignalWatch

// WatchSignals starts the CLI's subscription to the signals its command
// is forwarded (Request.Signals, SandboxRequest.Signals): a CLI calls it
// first, before loading anything.
func WatchSignals() *SignalWatch { return sandbox.WatchSignals() }
