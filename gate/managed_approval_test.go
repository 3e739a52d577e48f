package gate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
)

// sessionAnswerer approves every request for the session.
type sessionAnswerer struct{}

func (sessionAnswerer) Approve(_ context.Context, r *approval.Request) (approval.Response, error) {
	return approval.Response{ID: r.ID, Outcome: approval.ApprovedForSession}, nil
}

// An approval that outlives its run — a session approval, a request Register
// registered for the agent's prompt — holds under the managed layer it was
// given under and no other: once the security team changes the ceiling,
// the command is a question nobody answered. Unchanged, both still settle
// it (the request id Register computes is the one Run computes).
func TestManagedChangeRevokesLastingApprovals(t *testing.T) {
	ctx := context.Background()
	push := Request{Argv: []string{"git push"}, Shell: true, Session: "s1"}
	for _, changed := range []bool{false, true} {
		t.Run(map[bool]string{false: "unchanged", true: "changed"}[changed], func(t *testing.T) {
			h := newManagedHost(t, "")
			cfg := Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &syncRunner{}, Watch: true, Flags: Flags{Approver: "deny"}}
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			first := push
			first.Approver, first.ApproverID = sessionAnswerer{}, "exec"
			res, err := g.Run(ctx, first)
			if err != nil || res.Approval.Outcome != "approved_for_session" {
				t.Fatalf("first run: %+v, %v; want approved for the session", res, err)
			}
			reg, err := g.Register(ctx, Request{Argv: []string{"git push --tags"}, Shell: true, Session: "s1"})
			if err != nil || reg.RequestID == "" {
				t.Fatalf("Register: %+v, %v", reg, err)
			}
			if changed {
				// Nothing about git push: the ceiling is another all the same.
				h.write(t, filepath.Join(h.system, "config.toml"), strings.Replace(managedConfig, "LOG", h.log, 1)+"allowed_profiles = [\"workspace-write\", \"read-only\"]\n")
			}
			g2, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer g2.Close()
			want := map[bool]string{false: "session", true: "policy"}[changed]
			if res, err := g2.Run(ctx, push); err != nil || res.Approval.By != want {
				t.Errorf("session-approved command: settled by %q (%v), want %q", res.Approval.By, err, want)
			}
			want = map[bool]string{false: "hook", true: "policy"}[changed]
			if res, err := g2.Run(ctx, Request{Argv: []string{"git push --tags"}, Shell: true, Session: "s1"}); err != nil || res.Approval.By != want {
				t.Errorf("registered command: settled by %q (%v), want %q", res.Approval.By, err, want)
			}
		})
	}
}

// "Always" for a host is offered only where the network_rule it writes
// would count: not without a rules file to write (allow_user_rules =
// false), nor under a managed allowed_profiles, which drops the user's
// allow network_rules.
func TestProposedHostOnlyWhereTheRuleCounts(t *testing.T) {
	for _, c := range []struct {
		name    string
		amend   string
		managed *config.Managed
		want    string
	}{
		{"no managed layer", "/u/rules/default.rules", nil, "h.test"},
		{"managed, any profile", "/u/rules/default.rules", &config.Managed{}, "h.test"},
		{"managed allowed_profiles", "/u/rules/default.rules", &config.Managed{AllowedProfiles: []string{"net"}}, ""},
		{"no rules file to write", "", nil, ""},
	} {
		o := &call{AmendFile: c.amend, Ceiling: ceiling{c.managed}}
		if got := o.proposedHost("h.test"); got != c.want {
			t.Errorf("%s: proposedHost = %q, want %q", c.name, got, c.want)
		}
	}
}
