package sandbox

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// Command is one command to run inside a sandbox profile.
type Command struct {
	Argv []string
	// Plain, when Argv is bash -c SCRIPT, may hold SCRIPT's words when it
	// is one plain command (execpolicy.PlainCommand) judged as exactly
	// those words: the Linux runner then executes them without bash when
	// bash would do nothing else (its environment allows it), saving
	// bash's start. Nil runs Argv.
	Plain []string
	// Dir is the working directory; empty means the caller's.
	Dir string
	// Env is the environment before the profile's env_deny is applied.
	Env []string
	// SetEnv are NAME=VALUE entries the command gets after env_deny, in
	// place of its own values of those names: what the front end forces
	// (a pager on an agent's terminal), which no profile may take away.
	SetEnv []string
	// Stdin, Stdout and Stderr are passed to the command; nil means /dev/null.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Profile        *Profile
	// Net connects the network proxy of a profile in mode "proxy" to the
	// caller; its zero value denies every prompt and keeps no record.
	Net NetHooks
	// ForwardSignals passes the signals this process receives (and, on a
	// terminal, job control) on to the command (Supervisor): a CLI sets
	// it; a library caller ends the command through the context instead.
	ForwardSignals bool
	// Signals, with ForwardSignals, is the caller's earlier subscription
	// to them (Supervisor.Watch); nil subscribes when the command starts.
	Signals *SignalWatch
	// NoStderrTail says the caller reads no Result.StderrTail (gatedexec
	// sandbox reports no denial from it): the command then writes to a
	// pipe or file given as Stderr itself, rather than through a copy of
	// the runner's that keeps the tail, and its stderr reaches the caller
	// as it writes it, ordered with its stdout.
	NoStderrTail bool
}

// NetHooks are what the network proxy of a run asks of its caller.
type NetHooks struct {
	// Ask settles a prompt rule for host and port while the connection
	// waits; nil denies.
	Ask func(ctx context.Context, host string, port uint16) bool
	// Record receives each connection and refused lookup (the audit log).
	Record func(egress.Record)
}

// Result is what a sandboxed command did.
type Result struct {
	// ExitCode is the command's exit status, 128+N when killed by signal N.
	ExitCode int
	// Signal is the signal that killed the command, 0 when it exited.
	Signal int
	// Layers are the layers actually applied, e.g. "no_new_privs",
	// "setsid", "landlock-v7", "seccomp", "mountns", "netns", "rlimits".
	Layers []string
	// Missing are layers the profile needed that could not be applied
	// (only under best-effort enforcement; strict refuses to run instead).
	Missing []string
	// TimedOut is true when the profile's timeout killed the process group.
	TimedOut bool
	Duration time.Duration
	// StderrTail is a bounded tail of the command's stderr, kept for denial
	// detection; the full stream went to Command.Stderr live.
	StderrTail []byte
	// Tampered lists the git control files in the workspace that the run
	// created or changed (GitTamper); TamperUnscanned the directories
	// among them that the scan could not list; TamperIncomplete is true
	// when the workspace was too large to scan whole, or was not scanned
	// before the run.
	Tampered         []string
	TamperUnscanned  []string
	TamperIncomplete bool
	// Denied are the denials the backend saw itself rather than read from
	// stderr: the hosts the network proxy refused.
	Denied []Denial
}

// Runner runs commands under a profile. Each OS backend provides one.
type Runner interface {
	Run(ctx context.Context, c *Command) (*Result, error)
}

// An EarlyStarter is a Runner that can begin a run before its profile is
// read: a backend whose start of a run depends on little of the profile
// keeps that little from the last run of the same profile.
type EarlyStarter interface {
	Runner
	// StartEarly begins the next Run of c's command (its Argv, standard
	// descriptors and environment; no Profile yet) under the profile
	// id, as its caller names it (the same name in the same place, the
	// same profile), from what the last run of id needed, kept in bc.
	// The Run takes what was begun when its profile needs the same, and
	// ends it otherwise.
	StartEarly(c *Command, id string, bc BuildCache)
	// EndEarly ends what StartEarly began when no Run follows.
	EndEarly()
}

// ErrLayerUnavailable is wrapped by a Runner's error when a layer a strict
// profile needs cannot be applied on this host; nothing was run.
var ErrLayerUnavailable = errors.New("sandbox layer unavailable")

// ErrNotFound is wrapped when the program does not exist (exit 127).
var ErrNotFound = errors.New("command not found")

// ErrCannotExec is wrapped when the program exists but cannot be executed (exit 126).
var ErrCannotExec = errors.New("command cannot be executed")
