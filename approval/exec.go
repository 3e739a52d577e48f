package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// DefaultExecTimeout bounds an exec approver that sets no timeout. An
// approver is a program answering for a person or a host that already
// knows its answer; one that takes longer is stuck, and the command it
// holds up is better denied than left waiting (a caller needing longer
// sets approver_timeout or --approver-timeout).
const DefaultExecTimeout = 30 * time.Second

// MaxExecResponse is the most an exec approver may write to stdout.
const MaxExecResponse = 1 << 20

// execGrace is how long, after the approver exits, gatedexec waits for
// the rest of its stdout: a process it left behind in another session,
// holding the pipe, must not stall the run until the timeout.
const execGrace = 500 * time.Millisecond

// ExecApprover runs an external program for each request: the request as
// one JSON object on its stdin, the response as one JSON object on its
// stdout. No shell is started. Anything but a well-formed response for
// this request, within the timeout, from a program that exits 0, denies.
// The program runs in its own process group, which is killed when it
// exits or at the deadline, so nothing it started outlives the answer.
type ExecApprover struct {
	// Argv is the program and its arguments.
	Argv []string
	// Timeout bounds one run; 0 means DefaultExecTimeout.
	Timeout time.Duration
	// Stderr receives the program's stderr; nil discards it.
	Stderr io.Writer
	// Status, when set, is told that gatedexec is waiting for the
	// approver, and for how long at most: a person watching a run that
	// seems to hang must be able to see why.
	Status io.Writer
	// Env is the program's environment; nil means the caller's.
	Env []string
	// NoTerminal starts the program in a session of its own, without a
	// controlling terminal, and gives it its stderr through a pipe, so
	// that it can read no terminal: whoever types at the caller's
	// terminal is no person (an agent's pty, which the model drives).
	NoTerminal bool
}

// Approve runs the approver program for r. A denial for any failure comes
// back as a Response (Outcome Denied, Reason saying why) together with a
// non-nil error, so callers that only look at the Response still deny.
func (a *ExecApprover) Approve(ctx context.Context, r *Request) (Response, error) {
	resp, err := a.run(ctx, r)
	if err != nil {
		name := "(none)"
		if len(a.Argv) > 0 {
			name = a.Argv[0]
		}
		err = fmt.Errorf("approver exec:%s: %w", name, err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	return resp, nil
}

func (a *ExecApprover) timeout() time.Duration {
	if a.Timeout > 0 {
		return a.Timeout
	}
	return DefaultExecTimeout
}

func (a *ExecApprover) run(ctx context.Context, r *Request) (Response, error) {
	if len(a.Argv) == 0 {
		return Response{}, errors.New("no command")
	}
	in, err := json.Marshal(r)
	if err != nil {
		return Response{}, err
	}
	timeout := a.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// Stdout is a pipe of our own, not exec's copying goroutine: Wait
	// would wait for that goroutine, that is for every process holding
	// the pipe's write end, however long.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Response{}, err
	}
	defer pr.Close()
	cmd := exec.Command(a.Argv[0], a.Argv[1:]...)
	cmd.Env = a.Env
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = pw
	cmd.Stderr = a.Stderr
	// Its own process group, so that a timeout kills whatever the
	// approver started too, not just its first process; a session is one.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if a.NoTerminal {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if a.Stderr != nil {
			// Not an *os.File: exec copies through a pipe, and no
			// descriptor of the terminal reaches the program.
			cmd.Stderr = struct{ io.Writer }{a.Stderr}
		}
	}
	if _, file := cmd.Stderr.(*os.File); cmd.Stderr != nil && !file {
		// Copied through a pipe, for which Wait waits too, and which a
		// process the approver left behind may hold: not longer than
		// the grace the answer on stdout gets.
		cmd.WaitDelay = execGrace
	}
	if a.Status != nil {
		fmt.Fprintf(a.Status, "gatedexec: waiting for approver exec:%s (up to %v)\n", a.Argv[0], timeout)
	}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return Response{}, err
	}
	pgid := cmd.Process.Pid
	killGroup := func() { syscall.Kill(-pgid, syscall.SIGKILL) }

	type readResult struct {
		out []byte
		err error
	}
	read := make(chan readResult, 1)
	go func() {
		out, err := io.ReadAll(io.LimitReader(pr, MaxExecResponse+1))
		if len(out) > MaxExecResponse {
			// Unblock a writer stuck on a full pipe.
			killGroup()
		}
		read <- readResult{out, err}
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var waitErr error
	select {
	case waitErr = <-waited:
		if errors.Is(waitErr, exec.ErrWaitDelay) {
			// It exited 0; what it left behind holds its stderr, whose
			// tail is lost (killed below, as for stdout).
			waitErr = nil
		}
	case <-ctx.Done():
		killGroup()
		<-waited
		return Response{}, fmt.Errorf("no answer within %v (its process group was killed): %w", timeout, ctx.Err())
	}
	// The approver has answered (or failed); whatever it started goes
	// with it, which also closes the pipe it may have passed on.
	killGroup()
	var rr readResult
	grace := time.NewTimer(execGrace)
	defer grace.Stop()
	select {
	case rr = <-read:
	case <-grace.C:
		// A process outside the group still holds the pipe.
		pr.SetReadDeadline(time.Now())
		<-read
		return Response{}, errors.New("approver exited but a process it started still holds its stdout open")
	case <-ctx.Done():
		pr.SetReadDeadline(time.Now())
		<-read
		return Response{}, fmt.Errorf("no answer within %v: %w", timeout, ctx.Err())
	}
	switch {
	case len(rr.out) > MaxExecResponse:
		return Response{}, fmt.Errorf("response larger than %d bytes", MaxExecResponse)
	case rr.err != nil:
		return Response{}, fmt.Errorf("reading response: %w", rr.err)
	case waitErr != nil:
		return Response{}, fmt.Errorf("approver failed: %w", waitErr)
	}
	return parseResponse(rr.out, r.ID)
}

// parseResponse decodes exactly one JSON response for request id.
func parseResponse(out []byte, id string) (Response, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	var resp Response
	if err := decodeResponse(dec, &resp); err != nil {
		return Response{}, fmt.Errorf("bad response JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Response{}, errors.New("bad response JSON: more than one value")
	}
	if resp.ID != id {
		return Response{}, fmt.Errorf("response id %q does not match request id %q", resp.ID, id)
	}
	if !resp.Outcome.valid() {
		return Response{}, fmt.Errorf("unknown outcome %q", resp.Outcome)
	}
	return resp, nil
}

// decodeResponse reads one response object from dec, taking each key only
// as spelt and only once. Decoding into the struct would not: encoding/json
// takes "OUTCOME" for "outcome" and lets a repeated key override an earlier
// one, so {"outcome":"denied","Outcome":"approved"} would approve. Other
// keys are ignored.
func decodeResponse(dec *json.Decoder, resp *Response) error {
	if tok, err := dec.Token(); err != nil {
		return err
	} else if tok != json.Delim('{') {
		return errors.New("response is not an object")
	}
	fields := map[string]any{"id": &resp.ID, "outcome": &resp.Outcome, "reason": &resp.Reason}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key %v is not a string", tok)
		}
		dst, known := fields[key]
		for k := range fields {
			if !known && strings.EqualFold(key, k) {
				return fmt.Errorf("key %q is not spelt %q", key, k)
			}
		}
		if seen[key] {
			return fmt.Errorf("key %q given twice", key)
		}
		seen[key] = true
		if !known {
			dst = new(json.RawMessage)
		}
		if err := dec.Decode(dst); err != nil {
			return err
		}
	}
	_, err := dec.Token() // the closing brace
	return err
}
