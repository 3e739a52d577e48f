package gate

import (
	"os"

	"github.com/gatedexec/gatedexec/auditlog"
	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/profiles"
)

// AuditConfig is what `gatedexec audit` takes from the configuration of
// a place, read once.
type AuditConfig struct {
	// Log is the audit log the configuration names, as run would write
	// it: the managed layer's, else GATEDEXEC_AUDIT_LOG, else the layers'
	// audit_log; "" when none is configured.
	Log string
	// Placement says where the suggestions of `audit --suggest` must go
	// to take effect: a managed layer decides which layers' allow rules,
	// network_rules and profiles count, and a suggestion that ignored it
	// would propose what the ceiling drops.
	Placement auditlog.Placement
	// Profiles resolves profiles as run does.
	Profiles *profiles.Loader
}

// LoadAuditConfig reads the configuration layers of pl for `audit`.
func LoadAuditConfig(pl Place) (*AuditConfig, error) {
	cfg, err := loadLayers(os.Getenv, pl.Workspace, setting{})
	if err != nil {
		return nil, err
	}
	a := &AuditConfig{Placement: placementOf(cfg), Profiles: profileLoader(os.Getenv, pl, cfg, "")}
	if cfg.Managed != nil {
		a.Log = cfg.Managed.AuditLog
	} else {
		a.Log = pick(os.Getenv, "", cfg.Settings, config.KeyAuditLog, "").value
	}
	return a, nil
}
