package gate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/auditlog"
)

// placementOn is the placement of `audit --suggest` on h's configuration.
func placementOn(t *testing.T, h *testHost) auditlog.Placement {
	t.Helper()
	cfg, err := loadLayers(h.getenv, h.workspace, setting{})
	if err != nil {
		t.Fatal(err)
	}
	return placementOf(cfg)
}

// Without a managed layer suggestions go in the user's layer; under one,
// where they must go depends on its keys, and a profile name it does not
// allow is refused, naming the key and where it is set.
func TestSuggestPlacementFollowsTheCeiling(t *testing.T) {
	t.Run("no managed layer", func(t *testing.T) {
		h := newTestHost(t)
		pl := placementOn(t, h)
		if want := filepath.Join(h.user, "rules", "default.rules"); !strings.HasPrefix(pl.Rules, want) || !strings.HasPrefix(pl.Network, want) {
			t.Errorf("rules go in %q, hosts in %q; want %s", pl.Rules, pl.Network, want)
		}
		if want := filepath.Join(h.user, "profiles"); pl.Profiles != want || pl.ProfileRefused != nil {
			t.Errorf("profiles go in %q (refusing: %v), want %s", pl.Profiles, pl.ProfileRefused != nil, want)
		}
	})
	tests := []struct {
		name, extra          string
		rules, network, prof []string // in Rules, Network, ProfileRefused("workspace-write-audit")
		profiles             string   // "system" or "user"
	}{
		{name: "allowed_profiles, no user rules", extra: "allowed_profiles = [\"workspace-write\"]\nallow_user_rules = false\n",
			rules:    []string{"SYSTEM/rules", "allow_user_rules (SYSTEM/config.toml:5"},
			network:  []string{"SYSTEM/rules", "allowed_profiles (SYSTEM/config.toml:4"},
			prof:     []string{"workspace-write-audit", "allowed_profiles (SYSTEM/config.toml:4", "SYSTEM/profiles"},
			profiles: "system"},
		{name: "user rules allowed", extra: "allow_user_rules = true\n",
			rules:    []string{"USER/rules/default.rules", "allow_user_rules (SYSTEM/config.toml:4"},
			network:  []string{"USER/rules/default.rules"},
			profiles: "user"},
		{name: "workspace rules only", extra: "allow_user_rules = false\n",
			rules:    []string{"SYSTEM/rules", "allow_user_rules (SYSTEM/config.toml:4", ".gatedexec/rules", "allow_workspace_rules (unset in SYSTEM/config.toml)"},
			profiles: "user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newManagedHost(t, tt.extra)
			pl := placementOn(t, h.testHost)
			expand := strings.NewReplacer("SYSTEM", h.system, "USER", h.user).Replace
			check := func(what, got string, want []string) {
				for _, w := range want {
					if !strings.Contains(got, expand(w)) {
						t.Errorf("%s %q lacks %q", what, got, expand(w))
					}
				}
			}
			check("rules", pl.Rules, tt.rules)
			check("network", pl.Network, tt.network)
			refused := ""
			if pl.ProfileRefused != nil {
				refused = pl.ProfileRefused("workspace-write-audit")
			}
			if (refused != "") != (len(tt.prof) > 0) {
				t.Errorf("refused %q, want a refusal: %v", refused, len(tt.prof) > 0)
			}
			check("refusal", refused, tt.prof)
			if refused != "" && pl.ProfileRefused("workspace-write") != "" {
				t.Errorf("an allowed profile name is refused: %s", pl.ProfileRefused("workspace-write"))
			}
			want := filepath.Join(h.user, "profiles")
			if tt.profiles == "system" {
				want = filepath.Join(h.system, "profiles")
			}
			if pl.Profiles != want {
				t.Errorf("profiles go in %q, want %s", pl.Profiles, want)
			}
		})
	}
}
