package gate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/sandbox"
)

// ErrManaged is wrapped when the managed layer's ceiling refuses what was
// asked for (a profile it does not allow): the CLI exits 77.
var ErrManaged = errors.New("refused by the managed layer")

// ceiling is the managed layer's ceiling as the engine applies it; the
// zero ceiling (no managed layer) refuses nothing.
type ceiling struct {
	m *config.Managed
}

// refusesProfile says why the ceiling refuses the profile p, chosen by
// the name name (a -p value, a config key, or a rule's profile=), or ""
// when it allows it.
func (c ceiling) refusesProfile(name string, p *sandbox.Profile) string {
	if c.m == nil {
		return ""
	}
	if why := c.refusesName(name); why != "" {
		return why
	}
	if fullAccess(p) && !c.m.AllowFullAccess {
		return fmt.Sprintf("profile %s has full access, which the managed layer does not allow (%s)", name, c.m.Where(config.KeyAllowFullAccess))
	}
	return ""
}

// refusesName says why the ceiling's allowed_profiles refuses a profile
// named name, or "" when it lists the name or there is no list.
func (c ceiling) refusesName(name string) string {
	if c.m == nil || c.m.AllowedProfiles == nil || slices.Contains(c.m.AllowedProfiles, name) {
		return ""
	}
	return fmt.Sprintf("profile %s is not among the managed %s: %s", name, c.m.Where(config.KeyAllowedProfiles), strings.Join(c.m.AllowedProfiles, ", "))
}

// refusesEscalation says why the ceiling refuses to re-run a command of
// the profile named name under widened, the profile an escalation would
// give it, or "" when it allows it. An escalated profile is none of
// allowed_profiles: the list would be one approval away from meaningless.
func (c ceiling) refusesEscalation(name string, widened *sandbox.Profile) string {
	switch {
	case c.m == nil:
		return ""
	case c.m.AllowedProfiles != nil:
		return fmt.Sprintf("an escalation would run %s with more access than the profile, which the managed %s does not allow", name, c.m.Where(config.KeyAllowedProfiles))
	case fullAccess(widened) && !c.m.AllowFullAccess:
		return fmt.Sprintf("an escalation would give %s full access, which the managed layer does not allow (%s)", name, c.m.Where(config.KeyAllowFullAccess))
	}
	return ""
}

// dropsNetworkAllows reports whether the ceiling ignores the allow
// network_rules of every layer below it: with allowed_profiles, the hosts
// of the profiles it allows are the network's ceiling (loadPolicy). An
// "always" answer for a host writes such a rule, so it is then not offered.
func (c ceiling) dropsNetworkAllows() bool {
	return c.m != nil && c.m.AllowedProfiles != nil
}

// fullAccess reports whether p is full access as allow_full_access means
// it: unrestricted, or writing the whole filesystem with the network on.
// A protect or hide path (one that need not even exist) makes a profile
// restricted to the backends, not to what a command can do with it.
func fullAccess(p *sandbox.Profile) bool {
	return p.Unrestricted || sandbox.Under("/", p.Write) && p.Network == sandbox.NetworkOn
}

// approval returns the approval policy to apply for the one asked for
// (ap, chosen by the setting from): the managed approval_policy when ap is
// looser than it, with what was refused.
func (c ceiling) approval(ap approval.Policy, from setting) (approval.Policy, string) {
	if c.m == nil || c.m.ApprovalPolicy == "" {
		return ap, ""
	}
	limit := approval.Policy(c.m.ApprovalPolicy)
	if !ap.Looser(limit) {
		return ap, ""
	}
	return limit, fmt.Sprintf("approval policy %s from %s (looser than the managed %s = %s)", ap, from.from, c.m.Where(config.KeyApprovalPolicy), limit)
}

// approver returns the approver to use for the one picked (from a flag,
// the environment or a layer's config.toml), with what was refused: the
// managed approver when it pins one and picked is neither it nor deny,
// the one tightening left (DESIGN §11: lower layers may only tighten).
func (c ceiling) approver(picked setting) (setting, string) {
	if !c.pinsApprover() || picked.value == c.m.Approver || picked.value == "deny" {
		return picked, ""
	}
	pin := setting{c.m.Approver, c.m.Where(config.KeyApprover), ErrConfig}
	return pin, fmt.Sprintf("approver %s from %s (the managed %s pins %s)", picked.value, picked.from, c.m.Where(config.KeyApprover), c.m.Approver)
}

// pinsApprover says whether the managed layer pins the approver: then
// nobody else answers a prompt — not a front end's own approver (MCP
// elicitation), not a request an agent's prompt registered, not an
// --approve value unless the pinned approver is defer.
func (c ceiling) pinsApprover() bool {
	return c.m != nil && c.m.Approver != ""
}

// checkApprover fails (ErrConfig) when the pinned approver is an exec
// approver whose program is not an absolute path only root can change.
func (c ceiling) checkApprover() error {
	if !c.pinsApprover() || !strings.HasPrefix(c.m.Approver, "exec:") {
		return nil
	}
	argv, err := approval.SplitCommand(strings.TrimPrefix(c.m.Approver, "exec:"))
	if err != nil {
		return configErr(fmt.Errorf("%s: %w", c.m.Where(config.KeyApprover), err))
	}
	return configErr(c.m.CheckProgram(argv[0]))
}

// digest is the managed layer's digest for the audit record.
func (c ceiling) digest() string {
	if c.m == nil {
		return ""
	}
	return c.m.Digest
}

// refusedLine is the one line a run says about what the managed layer
// refused, "" when nothing.
func refusedLine(m *config.Managed, refused []string) string {
	if len(refused) == 0 {
		return ""
	}
	dir := config.DefaultSystemDir
	if m != nil {
		dir = m.Dir
	}
	return "managed layer " + dir + " refused: " + strings.Join(refused, "; ")
}
