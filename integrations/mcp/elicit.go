package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatedexec/gatedexec/approval"
)

// The answers a person can give, as the elicitation form offers them.
const (
	answerOnce    = "approve"
	answerSession = "approve_for_session"
	answerDeny    = "deny"
)

// inputKey names the one input request of a deferred call.
const inputKey = "approval"

// pendingTTL is how long a deferred call waits for the client's retry.
const pendingTTL = time.Hour

// elicitSchema is the form: one choice.
var elicitSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{
			"type":        "string",
			"title":       "Decision",
			"description": "approve runs it once; approve_for_session also runs it again in this session without asking",
			"enum":        []string{answerOnce, answerSession, answerDeny},
		},
	},
	"required": []string{"decision"},
}

// supportsElicitation reports whether the client said it can elicit.
func supportsElicitation(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// question is the input request put to the client's user for r.
func question(r *approval.Request) mcp.InputRequestMap {
	return mcp.InputRequestMap{inputKey: &mcp.ElicitParams{Message: describe(r), RequestedSchema: elicitSchema}}
}

// answer reads the user's answer from a retried call: the --approve or
// --deny value that resumes request id. Anything but an accepted
// approval — a decline, a cancel, no answer, an unknown choice — denies.
func answer(responses mcp.InputResponseMap, id string) (approve, deny []string, why string) {
	res, ok := responses[inputKey].(*mcp.ElicitResult)
	switch {
	case !ok:
		return nil, []string{id}, "the client sent no answer"
	case res.Action != "accept":
		return nil, []string{id}, "the user answered " + res.Action + " at the client"
	}
	switch d, _ := res.Content["decision"].(string); d {
	case answerOnce:
		return []string{id + ":once"}, nil, ""
	case answerSession:
		return []string{id + ":session"}, nil, ""
	}
	return nil, []string{id}, "the user denied it at the client"
}

// describe is what the person reads: the command, where it runs, in
// which profile and why gatedexec asks.
func describe(r *approval.Request) string {
	var b strings.Builder
	if r.Kind == approval.KindEscalation {
		fmt.Fprintf(&b, "gatedexec: the sandbox stopped this command; re-run it with more access (%s)?\n", r.Escalation)
		for _, d := range r.Denials {
			fmt.Fprintf(&b, "  denied: %s\n", d)
		}
	} else {
		b.WriteString("gatedexec: run this command?\n")
	}
	fmt.Fprintf(&b, "command: %s\ncwd: %s\nprofile: %s\n", strings.Join([]string(r.Argv), " "), string(r.Cwd), r.Profile)
	for _, why := range r.Reasons {
		fmt.Fprintf(&b, "why: %s: %s\n", why.Kind, why.Detail)
	}
	for _, m := range r.Matched {
		if m.Justification != "" {
			fmt.Fprintf(&b, "rule: %s\n", m.Justification)
		}
	}
	return b.String()
}

// pending is a call deferred until the client's user answers.
type pending struct {
	in      Input
	request *approval.Request
	// approved are the approvals given in the earlier rounds: a call
	// approved and then stopped by the sandbox asks again for the
	// escalation, and its next run needs both.
	approved []string
	// out is the deferred round's result, returned as denied when the
	// user refuses an escalation: re-running would run the command
	// unescalated once more.
	out  Output
	made time.Time
}

// pendingCalls are the deferred calls by their request state, a random
// token: the client echoes it, and only a call the server deferred can
// be resumed, once.
type pendingCalls struct {
	mu    sync.Mutex
	calls map[string]pending
}

func (p *pendingCalls) add(c pending) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b[:])
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls == nil {
		p.calls = map[string]pending{}
	}
	for k, old := range p.calls {
		if time.Since(old.made) > pendingTTL {
			delete(p.calls, k)
		}
	}
	c.made = time.Now()
	p.calls[token] = c
	return token, nil
}

// take removes and returns the call deferred under token.
func (p *pendingCalls) take(token string) (pending, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.calls[token]
	delete(p.calls, token)
	return c, ok && time.Since(c.made) <= pendingTTL
}
