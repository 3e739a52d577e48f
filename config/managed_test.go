package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// GATEDEXEC_SYSTEM_DIR replaces the standard system directory, except
// when that one is managed: a variable must not lift the ceiling.
func TestSystemDirOverride(t *testing.T) {
	tests := []struct {
		name, stdConfig string
		wantStd         bool
	}{
		{name: "no standard config"},
		{name: "unmanaged standard config", stdConfig: "approval_policy = \"never\"\n"},
		{name: "managed standard config", stdConfig: "managed = true\naudit_log = \"/x\"\n", wantStd: true},
		{name: "unparsable standard config", stdConfig: "managed = \n", wantStd: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			std, other := filepath.Join(t.TempDir(), "etc"), t.TempDir()
			if tt.stdConfig != "" {
				write(t, filepath.Join(std, "config.toml"), tt.stdConfig)
			}
			got, refused := systemDir(std, other)
			if want := map[bool]string{true: std, false: other}[tt.wantStd]; got != want {
				t.Errorf("systemDir = %s, want %s", got, want)
			}
			if tt.wantStd != strings.Contains(refused, "GATEDEXEC_SYSTEM_DIR="+other) {
				t.Errorf("refused = %q", refused)
			}
		})
	}
}
