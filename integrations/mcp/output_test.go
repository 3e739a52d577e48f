package mcp

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bounded buffer keeps the start and the end of what it is given,
// marks what it left out, and never refuses a write.
func TestBounded(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		max    int
		want   string
		cut    bool
	}{
		{"fits", []string{"hello ", "world"}, 100, "hello world", false},
		{"exactly", []string{"abcdefgh"}, 8, "abcdefgh", false},
		{"head and tail", []string{"0123456789abcdefghij"}, 8, "01\n[gatedexec: 12 bytes of output left out]\nefghij", true},
		{"many small writes", strings.Split("0123456789abcdefghij", ""), 8, "01\n[gatedexec: 12 bytes of output left out]\nefghij", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBounded(c.max)
			for _, w := range c.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			got, cut := b.String()
			if got != c.want || cut != c.cut {
				t.Errorf("got %q (cut %v), want %q (cut %v)", got, cut, c.want, c.cut)
			}
		})
	}
}

// Only an accepted approval approves; everything else denies the request.
func TestAnswer(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	accept := func(d any) mcp.InputResponseMap {
		return mcp.InputResponseMap{inputKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": d}}}
	}
	cases := []struct {
		name      string
		responses mcp.InputResponseMap
		approve   string
	}{
		{"approve", accept("approve"), id + ":once"},
		{"for the session", accept("approve_for_session"), id + ":session"},
		{"deny", accept("deny"), ""},
		{"unknown choice", accept("always"), ""},
		{"not a string", accept(true), ""},
		{"declined", mcp.InputResponseMap{inputKey: &mcp.ElicitResult{Action: "decline"}}, ""},
		{"cancelled", mcp.InputResponseMap{inputKey: &mcp.ElicitResult{Action: "cancel"}}, ""},
		{"no answer", nil, ""},
		{"another key", mcp.InputResponseMap{"other": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			approve, deny, why := answer(c.responses, id)
			if c.approve != "" {
				if len(approve) != 1 || approve[0] != c.approve || deny != nil || why != "" {
					t.Errorf("approve %q deny %q (%s), want approve %s", approve, deny, why, c.approve)
				}
				return
			}
			if approve != nil || len(deny) != 1 || deny[0] != id || why == "" {
				t.Errorf("approve %q deny %q (%q), want a denial of %s with a reason", approve, deny, why, id)
			}
		})
	}
}

// A deferred call resumes once, and only by its token.
func TestPendingCalls(t *testing.T) {
	var p pendingCalls
	tok, err := p.add(pending{in: Input{Command: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.take("not-" + tok); ok {
		t.Error("resumed by another token")
	}
	if c, ok := p.take(tok); !ok || c.in.Command != "x" {
		t.Errorf("take: %+v %v", c, ok)
	}
	if _, ok := p.take(tok); ok {
		t.Error("resumed twice")
	}
}
