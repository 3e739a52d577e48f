package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatedexec/gatedexec/approval"
)

// elicitor asks the client's user through MCP elicitation: the question
// goes to the person at the client, never to the model, whose only part
// is the tool call itself.
type elicitor struct {
	ss *mcp.ServerSession
}

// The answers a person can give, as the elicitation form offers them.
const (
	answerOnce    = "approve"
	answerSession = "approve_for_session"
	answerDeny    = "deny"
)

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

// Approve asks the client's user about r. Anything but an accepted
// approval — a decline, a cancel, an error, an unknown answer — denies.
func (e elicitor) Approve(ctx context.Context, r *approval.Request) (approval.Response, error) {
	res, err := e.ss.Elicit(ctx, &mcp.ElicitParams{Message: describe(r), RequestedSchema: elicitSchema})
	if err != nil {
		err = fmt.Errorf("elicitation: %w", err)
		return approval.Response{ID: r.ID, Outcome: approval.Denied, Reason: err.Error()}, err
	}
	if res.Action != "accept" {
		return approval.Response{ID: r.ID, Outcome: approval.Denied, Reason: "the user answered " + res.Action + " at the client"}, nil
	}
	switch d, _ := res.Content["decision"].(string); d {
	case answerOnce:
		return approval.Response{ID: r.ID, Outcome: approval.Approved, Reason: "approved at the client"}, nil
	case answerSession:
		return approval.Response{ID: r.ID, Outcome: approval.ApprovedForSession, Reason: "approved at the client for the session"}, nil
	default:
		return approval.Response{ID: r.ID, Outcome: approval.Denied, Reason: "denied at the client"}, nil
	}
}

// describe is what the person reads: the command, where it runs, in
// which profile and why gatedexec asks.
func describe(r *approval.Request) string {
	var b strings.Builder
	if r.Kind == approval.KindEscalation {
		fmt.Fprintf(&b, "gatedexec: the sandbox stopped this command; re-run it with more access: %s?\n", r.Escalation)
		for _, d := range r.Denials {
			fmt.Fprintf(&b, "  denied: %s %s\n", d.Kind, d.Path)
		}
	} else {
		b.WriteString("gatedexec: run this command?\n")
	}
	fmt.Fprintf(&b, "command: %s\ncwd: %s\nprofile: %s\n", strings.Join([]string(r.Argv), " "), string(r.Cwd), r.Profile)
	for _, why := range r.Reasons {
		fmt.Fprintf(&b, "why: %s: %s\n", why.Kind, why.Detail)
	}
	return b.String()
}
