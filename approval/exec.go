package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// DefaultExecTimeout bounds an exec approver that sets no timeout.
const DefaultExecTimeout = 5 * time.Minute

// MaxExecResponse is the most an exec approver may write to stdout.
const MaxExecResponse = 1 << 20

// ExecApprover runs an external program for each request: the request as
// one JSON object on its stdin, the response as one JSON object on its
// stdout. No shell is started. Anything but a well-formed response for
// this request, within the timeout, from a program that exits 0, denies.
type ExecApprover struct {
	// Argv is the program and its arguments.
	Argv []string
	// Timeout bounds one run; 0 means DefaultExecTimeout.
	Timeout time.Duration
	// Stderr receives the program's stderr; nil discards it.
	Stderr io.Writer
	// Env is the program's environment; nil means the caller's.
	Env []string
}

// Approve runs the approver program for r. A denial for any failure comes
// back as a Response (Outcome Denied, Reason saying why) together with a
// non-nil error, so callers that only look at the Response still deny.
func (a *ExecApprover) Approve(ctx context.Context, r *Request) (Response, error) {
	resp, err := a.run(ctx, r)
	if err != nil {
		err = fmt.Errorf("approver exec:%s: %w", a.Argv[0], err)
		return Response{ID: r.ID, Outcome: Denied, Reason: err.Error()}, err
	}
	return resp, nil
}

func (a *ExecApprover) run(ctx context.Context, r *Request) (Response, error) {
	if len(a.Argv) == 0 {
		return Response{}, errors.New("no command")
	}
	in, err := json.Marshal(r)
	if err != nil {
		return Response{}, err
	}
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.Command(a.Argv[0], a.Argv[1:]...)
	cmd.Env = a.Env
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = a.Stderr
	// Its own process group, so that a timeout kills whatever the
	// approver started too, not just its first process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Response{}, err
	}
	if err := cmd.Start(); err != nil {
		return Response{}, err
	}
	pgid := cmd.Process.Pid
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-pgid, syscall.SIGKILL) })

	out, readErr := io.ReadAll(io.LimitReader(stdout, MaxExecResponse+1))
	if len(out) > MaxExecResponse {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if readErr != nil {
		// Unblock a writer stuck on a full pipe before waiting.
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	waitErr := cmd.Wait()
	stop()
	switch {
	case ctx.Err() != nil:
		syscall.Kill(-pgid, syscall.SIGKILL)
		return Response{}, fmt.Errorf("no answer within %v: %w", timeout, ctx.Err())
	case len(out) > MaxExecResponse:
		return Response{}, fmt.Errorf("response larger than %d bytes", MaxExecResponse)
	case readErr != nil:
		return Response{}, fmt.Errorf("reading response: %w", readErr)
	case waitErr != nil:
		return Response{}, fmt.Errorf("approver failed: %w", waitErr)
	}
	return parseResponse(out, r.ID)
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
