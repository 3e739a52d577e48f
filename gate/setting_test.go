package gate

import (
	"errors"
	"testing"

	"github.com/gatedexec/gatedexec/config"
)

// One key names the flag, the variable and the config.toml key, and the
// setting says which of them it came from.
func TestPick(t *testing.T) {
	s := config.Settings{ApproverTimeout: "5s", Origin: map[string]string{config.KeyApproverTimeout: "c.toml:2:1"}}
	tests := []struct {
		flag, env string
		want      setting
	}{
		{"1s", "2s", setting{"1s", "--approver-timeout", ErrUsage}},
		{"", "2s", setting{"2s", "GATEDEXEC_APPROVER_TIMEOUT", ErrConfig}},
		{"", "", setting{"5s", "c.toml:2:1: approver_timeout", ErrConfig}},
	}
	for _, tt := range tests {
		getenv := func(k string) string {
			if k == "GATEDEXEC_APPROVER_TIMEOUT" {
				return tt.env
			}
			return ""
		}
		if got := pick(getenv, tt.flag, s, config.KeyApproverTimeout, "9s"); got != tt.want {
			t.Errorf("pick(%q, %q) = %+v, want %+v", tt.flag, tt.env, got, tt.want)
		}
	}
	def := pick(func(string) string { return "" }, "", config.Settings{}, config.KeyAuditLog, "")
	if def.from != "default audit_log" || def.kind != nil {
		t.Errorf("default = %+v", def)
	}
	if err := (setting{"x", "--profile", ErrUsage}).errorf(errors.New("bad")); !errors.Is(err, ErrUsage) || err.Error() != "--profile: bad" {
		t.Errorf("errorf = %v", err)
	}
}
