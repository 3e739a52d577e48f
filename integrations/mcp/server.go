// Package mcp is gatedexec's MCP server (DESIGN §10): one tool,
// run_command, that carries a shell command through both gates of a
// long-lived engine — the rules and profiles are read once and again
// whenever their files change — and returns the decision, the exit
// status, bounded output, denials and escalation as structured content.
// Prompts go to the person at the client through elicitation when the
// client offers it, else to the configured exec approver, else they are
// denied: the model, which makes the tool call, never answers one.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/integrations"
	"github.com/gatedexec/gatedexec/sandbox"
)

// ToolName is the server's one tool.
const ToolName = "run_command"

// Options configure a Server.
type Options struct {
	// Gate is the engine, built with Config.Watch so that rule and
	// profile edits apply to the next call.
	Gate *gate.Gate
	// Workspace is the Gate's workspace: a relative cwd is taken from it.
	Workspace string
	// Env is the commands' environment.
	Env []string
	// Exe is this gatedexec binary (see integrations.SelfInvocation).
	Exe string
	// MaxOutput bounds each of stdout and stderr; 0 is DefaultMaxOutput.
	MaxOutput int
	// Version is the server's version, as the client is told.
	Version string
}

// Input is run_command's arguments.
type Input struct {
	Command string  `json:"command" jsonschema:"the command, a bash script"`
	Cwd     string  `json:"cwd,omitempty" jsonschema:"the directory to run in, absolute or relative to the workspace (default: the workspace)"`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"seconds after which the command is killed (default and most: the profile's timeout, when it has one)"`
}

// Output is run_command's structured result.
type Output struct {
	// Decision is the rules' decision: allow, prompt or forbidden.
	Decision string `json:"decision"`
	// Action is what the approval policy made of it: run, ask or deny.
	Action string `json:"action"`
	// Approval says who settled it and how.
	Approval gate.ApprovalResult `json:"approval"`
	Reasons  []string            `json:"reasons"`
	// Ran is true when the command was started; ExitCode is its status.
	Ran      bool   `json:"ran"`
	ExitCode int    `json:"exit_code"`
	Signal   int    `json:"signal,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// StdoutTruncated and StderrTruncated say bytes were left out (the
	// text marks where).
	StdoutTruncated bool             `json:"stdout_truncated,omitempty"`
	StderrTruncated bool             `json:"stderr_truncated,omitempty"`
	Profile         string           `json:"profile,omitempty"`
	Layers          []string         `json:"layers"`
	Denials         []sandbox.Denial `json:"denials"`
	// Escalated is true when the command ran again with the access an
	// approved escalation granted.
	Escalated bool   `json:"escalated"`
	RequestID string `json:"request_id,omitempty"`
	// Error says what gatedexec itself could not do.
	Error string `json:"error,omitempty"`
}

// Server serves run_command over one MCP connection at a time.
type Server struct {
	opts Options
	srv  *mcp.Server
	// calls are the tool calls in progress, waited for by Serve so that a
	// command ended by a disconnect is gone before the server exits.
	calls sync.WaitGroup
	// deferred are the calls waiting for the client's user.
	deferred pendingCalls
}

// New builds a Server.
func New(opts Options) *Server {
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	s := &Server{opts: opts}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "gatedexec", Version: opts.Version}, nil)
	// The tool is added with its schemas made once here, and its
	// arguments decoded by decodeInput: the SDK's typed tools validate
	// input and output against the schemas on every call, by reflection.
	inSchema, err := jsonschema.For[Input](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: the schema of %s's input: %v", ToolName, err))
	}
	outSchema, err := jsonschema.For[Output](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: the schema of %s's output: %v", ToolName, err))
	}
	s.srv.AddTool(&mcp.Tool{
		Name: ToolName,
		Description: "Run a shell command (bash) through gatedexec: the exec-policy rules decide whether it may run, " +
			"a person approves what they mark for approval, and it runs inside the OS sandbox. " +
			"Returns the decision, the exit code, stdout and stderr (bounded), and what the sandbox denied.",
		InputSchema:  inSchema,
		OutputSchema: outSchema,
	}, s.handle)
	return s
}

// handle answers a call of run_command: its arguments decoded, the
// command carried through the engine, its Output as structured content
// (none when the call waits for the client's user).
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in, err := decodeInput(req.Params.Arguments)
	if err != nil {
		res := &mcp.CallToolResult{}
		res.SetError(fmt.Errorf("validating \"arguments\": %w", err))
		return res, nil
	}
	res, out := s.runCommand(ctx, req, in)
	if res.InputRequests == nil {
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("marshaling output: %w", err)
		}
		res.StructuredContent = json.RawMessage(b)
	}
	return res, nil
}

// Serve answers the client on t until it disconnects or ctx ends, and
// returns once every command it started has ended: a disconnect cancels
// the calls in progress, which kills their commands.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	err := s.srv.Run(ctx, t)
	s.calls.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		err = nil
	}
	return err
}

func (s *Server) runCommand(ctx context.Context, req *mcp.CallToolRequest, in Input) (*mcp.CallToolResult, Output) {
	s.calls.Add(1)
	defer s.calls.Done()
	var (
		out   Output
		ask   mcp.InputRequestMap
		state string
		err   error
	)
	if req.Session != nil && supportsElicitation(req.Session) {
		out, ask, state, err = s.elicited(ctx, req.Params, in)
	} else {
		approver, id := s.approver()
		out, _, err = s.run(ctx, in, approver, id, nil, nil)
	}
	switch {
	case err != nil:
		out.Error = err.Error()
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "gatedexec: " + err.Error()}}}, out
	case ask != nil:
		return &mcp.CallToolResult{InputRequests: ask, RequestState: state}, out
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary(out)}}}, out
}

// elicited carries a call through the engine for a client that can ask
// its user. A prompt (or an escalation after a sandbox denial) is
// deferred, as with --approver defer, and handed to the client as an
// input request (MCP multi round-trip; the SDK turns it into an
// elicitation/create for a client of an older protocol); the client's
// retry carries the answer, which resumes the request by its id, so the
// person approves exactly the request they were shown. ask is non-nil
// when the call waits for the answer; state is then the token the retry
// must echo.
func (s *Server) elicited(ctx context.Context, p *mcp.CallToolParamsRaw, in Input) (out Output, ask mcp.InputRequestMap, state string, err error) {
	var approve, deny []string
	if p.RequestState != "" {
		prev, ok := s.deferred.take(p.RequestState)
		if !ok || prev.in != in {
			return Output{}, nil, "", errors.New("this call answers no request that is waiting (it was answered already, or it expired)")
		}
		var why string
		approve, deny, why = answer(p.InputResponses, prev.request.ID)
		approve = append(slices.Clip(prev.approved), approve...)
		if why != "" && prev.request.Kind == approval.KindEscalation {
			// The command ran once already, unescalated: that run's
			// result stands, with the escalation refused.
			prev.out.Approval = gate.ApprovalResult{By: "elicitation", Outcome: approval.Denied, Reason: why}
			return prev.out, nil, "", nil
		}
	}
	out, res, err := s.run(ctx, in, approval.DeferApprover{}, "elicitation", approve, deny)
	if err != nil || res == nil {
		return out, nil, "", err
	}
	if out.Approval.By == "defer" {
		// Resumed by the answer given at the client.
		out.Approval.By = "elicitation"
	}
	if res.Approval.Outcome != gate.Deferred || res.Request == nil {
		return out, nil, "", nil
	}
	token, err := s.deferred.add(pending{in: in, request: res.Request, approved: approve, out: out})
	if err != nil {
		return out, nil, "", err
	}
	return out, question(res.Request), token, nil
}

// run carries one call through the engine, asking approver (nil: the
// configured one), resuming with approve and deny.
func (s *Server) run(ctx context.Context, in Input, approver gate.Approver, approverID string, approve, deny []string) (Output, *gate.Result, error) {
	out := Output{Reasons: []string{}, Layers: []string{}, Denials: []sandbox.Denial{}}
	switch {
	case strings.TrimSpace(in.Command) == "":
		return out, nil, errors.New("command is empty")
	case strings.ContainsRune(in.Command, 0):
		return out, nil, errors.New("command holds a NUL byte")
	case in.Timeout < 0:
		return out, nil, fmt.Errorf("timeout %v: want a positive number of seconds", in.Timeout)
	}
	cwd := in.Cwd
	if cwd == "" {
		cwd = s.opts.Workspace
	} else if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(s.opts.Workspace, cwd)
	}
	pl, err := gate.ResolvePlace(cwd, s.opts.Workspace)
	if err != nil {
		return out, nil, err
	}
	// The model's timeout may cut a command short, never outlast the
	// profile's limit.
	req := gate.Request{Argv: []string{in.Command}, Shell: true, Cwd: pl.Cwd, Env: s.opts.Env,
		Timeout: time.Duration(in.Timeout * float64(time.Second)), TimeoutOnlyShortens: true,
		// Judged once, by the run: refused there, the call is audited.
		Refuse: func(chk *gate.CheckResult) string { return integrations.SelfInvocation(in.Command, chk, s.opts.Exe) }}
	req.Approver, req.ApproverID = approver, approverID
	req.Approve, req.Deny = approve, deny
	stdout, stderr := newBounded(s.opts.MaxOutput), newBounded(s.opts.MaxOutput)
	req.Stdout, req.Stderr = stdout, stderr
	res, err := s.opts.Gate.Run(ctx, req)
	out.Stdout, out.StdoutTruncated = stdout.String()
	out.Stderr, out.StderrTruncated = stderr.String()
	if res != nil {
		fill(&out, res)
	}
	return out, res, err
}

// approver is who is asked for a client that cannot elicit: the
// configured approver when it is an exec approver (a program answering
// for a person); else nobody — a tty prompt would write over the
// client's own screen, and a deferred request could only be resumed by
// the model.
func (s *Server) approver() (gate.Approver, string) {
	if s.opts.Gate.ApproverName() == "exec" {
		return nil, ""
	}
	return approval.DenyApprover{}, "deny"
}

// fill copies a run's result into the tool's output.
func fill(out *Output, res *gate.Result) {
	out.Decision, out.Action = res.Decision, string(res.Action)
	for _, r := range res.Reasons {
		out.Reasons = append(out.Reasons, string(r.Kind)+": "+r.Detail)
	}
	out.Approval = res.Approval
	out.Ran, out.TimedOut, out.Escalated = res.Ran, res.TimedOut, res.Escalated
	if res.ExitCode != nil {
		out.ExitCode = *res.ExitCode
	}
	if res.Signal != nil {
		out.Signal = *res.Signal
	}
	out.Profile, out.RequestID = res.Profile, res.RequestID
	out.Layers = append(out.Layers, res.Layers...)
	out.Denials = append(out.Denials, res.Denials...)
	out.Error = res.Error
}

// summary is the text content: what a client without structured content
// shows.
func summary(o Output) string {
	var b strings.Builder
	switch {
	case !o.Ran:
		fmt.Fprintf(&b, "gatedexec: not run: %s (%s by %s", o.Decision, o.Approval.Outcome, o.Approval.By)
		if o.Approval.Reason != "" {
			fmt.Fprintf(&b, ": %s", o.Approval.Reason)
		}
		b.WriteString(")\n")
		for _, r := range o.Reasons {
			fmt.Fprintf(&b, "reason: %s\n", r)
		}
	default:
		fmt.Fprintf(&b, "exit code %d (profile %s)\n", o.ExitCode, o.Profile)
	}
	for _, d := range o.Denials {
		fmt.Fprintf(&b, "sandbox denied: %s\n", d)
	}
	if o.Stdout != "" {
		fmt.Fprintf(&b, "stdout:\n%s\n", o.Stdout)
	}
	if o.Stderr != "" {
		fmt.Fprintf(&b, "stderr:\n%s\n", o.Stderr)
	}
	return b.String()
}
