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

// Bounds of what a question shows, so that it stays a short message
// whose every line the person can read: a model that writes the command
// could otherwise bury it under its reasons.
const (
	// maxShownCommand is the longest command line shown whole.
	maxShownCommand = 2000
	// maxShownText is the longest text shown whole in any other field.
	maxShownText = 300
	// maxShownItems is how many reasons, rules or denials are listed.
	maxShownItems = 6
)

// describe is what the person reads: why gatedexec asks, where the
// command runs and in which profile, then the command. Every field is
// shown as a tty prompt shows it (approval.ShowText, approval.ShowArgv):
// one line each, quoted when it holds a newline or another control
// character, cut with a mark when long. The command comes last, after
// the fields it could otherwise be made to look like.
func describe(r *approval.Request) string {
	var b strings.Builder
	list := func(label string, n int, item func(i int) string) {
		for i := range min(n, maxShownItems) {
			fmt.Fprintf(&b, "%s %s\n", label, approval.ShowText(item(i), maxShownText))
		}
		if n > maxShownItems {
			fmt.Fprintf(&b, "%s ...and %d more\n", label, n-maxShownItems)
		}
	}
	if r.Kind == approval.KindEscalation {
		fmt.Fprintf(&b, "gatedexec: the sandbox stopped this command; re-run it with more access (%s)?\n", approval.ShowText(r.Escalation, maxShownText))
		list("  denied:", len(r.Denials), func(i int) string { return r.Denials[i].String() })
	} else {
		b.WriteString("gatedexec: run this command?\n")
	}
	fmt.Fprintf(&b, "cwd: %s\n", approval.ShowText(string(r.Cwd), maxShownText))
	if r.Workspace != "" {
		fmt.Fprintf(&b, "workspace: %s\n", approval.ShowText(string(r.Workspace), maxShownText))
	}
	fmt.Fprintf(&b, "profile: %s\n", approval.ShowText(r.Profile, maxShownText))
	list("why:", len(r.Reasons), func(i int) string { return string(r.Reasons[i].Kind) + ": " + r.Reasons[i].Detail })
	var rules []string
	for _, m := range r.Matched {
		if m.Justification != "" {
			rules = append(rules, m.Justification)
		}
	}
	list("rule:", len(rules), func(i int) string { return rules[i] })
	fmt.Fprintf(&b, "command: %s\n", approval.ShowArgv(r.Argv, maxShownCommand, maxShownCommand))
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
