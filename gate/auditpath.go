package gate

import (
	"os"

	"github.com/gatedexec/gatedexec/config"
)

// AuditLogPath is the audit log the configuration of pl names, as run
// would write it: the managed layer's, else GATEDEXEC_AUDIT_LOG, else the
// layers' audit_log; "" when none is configured.
func AuditLogPath(pl Place) (string, error) {
	cfg, err := loadLayers(os.Getenv, pl.Workspace, setting{})
	if err != nil {
		return "", err
	}
	if cfg.Managed != nil {
		return cfg.Managed.AuditLog, nil
	}
	return pick(os.Getenv, "", cfg.Settings, config.KeyAuditLog, "").value, nil
}
