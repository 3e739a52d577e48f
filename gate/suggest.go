package gate

import (
	"fmt"
	"path/filepath"

	"github.com/gatedexec/gatedexec/auditlog"
	"github.com/gatedexec/gatedexec/config"
)

// placementOf is AuditConfig.Placement of the layers cfg.
func placementOf(cfg *config.Config) auditlog.Placement {
	m := cfg.Managed
	user := userRulesFile(cfg.Dirs)
	if m == nil {
		rules := user + " (or a trusted workspace's .gatedexec/rules/)"
		return auditlog.Placement{Rules: rules, Network: rules, Profiles: filepath.Join(cfg.Dirs.User, "profiles")}
	}
	c := ceiling{m}
	pl := auditlog.Placement{Rules: managedRules(cfg), Network: managedNetwork(cfg, c), Profiles: filepath.Join(cfg.Dirs.User, "profiles")}
	if m.AllowedProfiles != nil {
		// Lower layers' profile directories are not read, and a name
		// not listed is refused whatever file defines it.
		pl.Profiles = filepath.Join(m.Dir, "profiles")
		pl.ProfileRefused = func(name string) string {
			if why := c.refusesName(name); why != "" {
				return fmt.Sprintf("%s; it takes effect only in %s with %q added to that list", why, pl.Profiles+"/", name)
			}
			return ""
		}
	}
	return pl
}

// managedRules says where an allow prefix_rule counts under the managed
// layer of cfg, and which keys say so.
func managedRules(cfg *config.Config) string {
	m := cfg.Managed
	if cfg.AllowsUserRules() {
		return fmt.Sprintf("%s (the managed %s lets the user's allow rules count)", userRulesFile(cfg.Dirs), m.Where(config.KeyAllowUserRules))
	}
	where := fmt.Sprintf("%s (the managed layer; a user's allow rule would not count: the managed %s is false)", filepath.Join(m.Dir, "rules")+"/", m.Where(config.KeyAllowUserRules))
	if m.AllowWorkspaceRules {
		where += fmt.Sprintf(", or a trusted workspace's .gatedexec/rules/ (the managed %s)", m.Where(config.KeyAllowWorkspaceRules))
	}
	return where
}

// managedNetwork says where an allow network_rule counts under the
// ceiling c of cfg: where it drops those of every lower layer
// (dropsNetworkAllows), whatever allow_user_rules says, the managed
// layer only.
func managedNetwork(cfg *config.Config, c ceiling) string {
	if !c.dropsNetworkAllows() {
		return managedRules(cfg)
	}
	return fmt.Sprintf("%s (the managed layer; the managed %s drops the allow network_rules of every lower layer)", filepath.Join(c.m.Dir, "rules")+"/", c.m.Where(config.KeyAllowedProfiles))
}
