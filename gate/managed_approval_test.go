package gate

import (
	"context"
	"errors"
	"os"
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

// A managed approver is a pin: no flag, variable, lower config.toml or
// --config replaces it (each is refused, and said), nor does a front
// end's own approver, an --approve value (the pin is not defer) or a
// request an agent's prompt registered answer in its place. Deny, the
// one tightening, is no refusal.
func TestManagedApproverPin(t *testing.T) {
	ctx := context.Background()
	push := Request{Argv: []string{"git", "push"}, Session: "s1"}
	tests := []struct {
		name        string
		setup       func(*managedHost, *testing.T, *Config, *Request)
		wantRefused string
	}{
		{name: "--approver", setup: func(_ *managedHost, _ *testing.T, c *Config, _ *Request) { c.Flags.Approver = "defer" },
			wantRefused: "approver defer from --approver (the managed approver ("},
		{name: "GATEDEXEC_APPROVER", setup: func(h *managedHost, _ *testing.T, _ *Config, _ *Request) { h.env["GATEDEXEC_APPROVER"] = "defer" },
			wantRefused: "approver defer from GATEDEXEC_APPROVER"},
		{name: "user config.toml", setup: func(h *managedHost, t *testing.T, _ *Config, _ *Request) {
			h.write(t, filepath.Join(h.user, "config.toml"), "approver = \"defer\"\n")
		}, wantRefused: "config.toml:1:1: approver (the managed approver ("},
		{name: "--config", setup: func(h *managedHost, t *testing.T, c *Config, _ *Request) {
			c.Flags.ConfigFile = filepath.Join(h.env["HOME"], "c.toml")
			h.write(t, c.Flags.ConfigFile, "approver = \"defer\"\n")
		}, wantRefused: "c.toml:1:1: approver"},
		{name: "the request's approver", setup: func(_ *managedHost, _ *testing.T, _ *Config, r *Request) {
			r.Approver, r.ApproverID = sessionAnswerer{}, "elicitation"
		}},
		{name: "--approve", setup: func(h *managedHost, t *testing.T, c *Config, r *Request) {
			g, err := New(*c)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			res, err := g.Run(ctx, *r)
			if err != nil {
				t.Fatal(err)
			}
			r.Approve = []string{res.RequestID + ":session"}
		}},
		{name: "registered at the agent's prompt", setup: func(_ *managedHost, t *testing.T, c *Config, r *Request) {
			g, err := New(*c)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if reg, err := g.Register(ctx, *r); err != nil || reg.RequestID != "" {
				t.Errorf("Register under a pinned approver: %+v, %v; want nothing registered", reg, err)
			}
		}},
		{name: "--approver deny", setup: func(_ *managedHost, _ *testing.T, c *Config, _ *Request) { c.Flags.Approver = "deny" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newManagedHost(t, "approver = \"deny\"\n")
			cfg := Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &syncRunner{}}
			req := push
			tt.setup(h, t, &cfg, &req)
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if got := g.Refused(); tt.wantRefused == "" && got != "" || !strings.Contains(got, tt.wantRefused) {
				t.Errorf("Refused() = %q, want it to say %q", got, tt.wantRefused)
			}
			if !g.ApproverPinned() || g.ApproverName() != "deny" {
				t.Errorf("approver %s (pinned %v), want the managed deny", g.ApproverName(), g.ApproverPinned())
			}
			res, err := g.Run(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ran || res.Approval.By != "policy" || res.Approval.Reason != DenyApproverReason {
				t.Errorf("a managed prompt under the pinned deny approver: ran %v, approval %+v", res.Ran, res.Approval)
			}
		})
	}
}

// A pinned exec approver's program must be an absolute path only root
// can change: one the user could replace would answer for them.
func TestManagedApproverProgramRootOnly(t *testing.T) {
	for _, c := range []struct {
		name, spec string
		mode       os.FileMode
		want       string
	}{
		{"writable by others", "exec:PROG", 0o777, "writable by its group or others"},
		{"on the PATH", "exec:approve-it", 0o755, "not an absolute path"},
		{"root's", "exec:PROG --flag", 0o755, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newManagedHost(t, "")
			// Outside the managed layer, whose own files are checked as it is.
			prog := filepath.Join(filepath.Dir(h.system), "bin", "approve.sh")
			h.write(t, prog, "#!/bin/sh\nexit 1\n")
			if err := os.Chmod(prog, c.mode); err != nil {
				t.Fatal(err)
			}
			h.write(t, filepath.Join(h.system, "config.toml"), strings.Replace(managedConfig, "LOG", h.log, 1)+
				"approver = \""+strings.Replace(c.spec, "PROG", prog, 1)+"\"\n")
			g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &syncRunner{}})
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				g.Close()
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "config.toml:") {
				t.Errorf("New = %v; want ErrConfig naming the managed approver's file:line and %q", err, c.want)
			}
		})
	}
}
