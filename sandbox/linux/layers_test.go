package linux

import (
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

func TestPlanLayers(t *testing.T) {
	full := Capabilities{LandlockABI: 7, Seccomp: true, UserNS: true, MountNS: true, NetNS: true, PIDNS: true}
	ws := &sandbox.Profile{ReadAll: true, Write: []string{"/w"}, Protect: []string{"/w/.git/hooks"}, Network: sandbox.NetworkOff}
	noNS := &sandbox.Profile{ReadAll: true, Write: []string{"/w"}, Network: sandbox.NetworkOff, SharePIDs: true}
	noMount := &sandbox.Profile{ReadAll: true, Write: []string{"/w"}, Network: sandbox.NetworkOff}
	iso := &sandbox.Profile{ReadAll: true, Network: sandbox.NetworkIsolated}
	tests := []struct {
		name         string
		p            *sandbox.Profile
		caps         Capabilities
		layers, miss []string
	}{
		{"workspace-write full host", ws, full,
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "mountns", "netns", "pidns", "no_caps"}, nil},
		{"pid namespace without a mount plan", noMount, full,
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "netns", "pidns", "no_caps"}, nil},
		{"private tmp is a mount plan", &sandbox.Profile{ReadAll: true, PrivateTmp: []string{"/tmp"}, Network: sandbox.NetworkOn}, full,
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "mountns", "pidns", "no_caps"}, nil},
		{"no pid namespace on the host", noMount, Capabilities{LandlockABI: 7, Seccomp: true, UserNS: true, MountNS: true, NetNS: true},
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "netns", "no_caps"}, []string{"pidns"}},
		{"newer landlock capped", noNS, Capabilities{LandlockABI: 9, Seccomp: true, NetNS: true, Root: true},
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "netns", "no_caps"}, nil},
		{"network off without netns", noNS, Capabilities{LandlockABI: 3, Seccomp: true},
			[]string{"no_new_privs", "setsid", "landlock-v3", "seccomp", "no_caps"}, []string{"netns"}},
		{"no namespaces needed", &sandbox.Profile{ReadAll: true, Network: sandbox.NetworkOn, SharePIDs: true}, Capabilities{LandlockABI: 3, Seccomp: true},
			[]string{"no_new_privs", "setsid", "landlock-v3", "seccomp", "no_caps"}, nil},
		{"no user ns, not root", ws, Capabilities{LandlockABI: 7, Seccomp: true, MountNS: true, NetNS: true, PIDNS: true},
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "no_caps"}, []string{"mountns", "netns", "pidns"}},
		{"root needs no user ns", ws, Capabilities{LandlockABI: 7, Seccomp: true, MountNS: true, NetNS: true, PIDNS: true, Root: true},
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "mountns", "netns", "pidns", "no_caps"}, nil},
		{"bare kernel", ws, Capabilities{},
			[]string{"no_new_privs", "setsid", "no_caps"}, []string{"landlock", "seccomp", "mountns", "netns", "pidns"}},
		{"isolated", iso, full,
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "netns", "pidns", "no_caps"}, nil},
		{"isolated without netns", iso, Capabilities{LandlockABI: 7, Seccomp: true, UserNS: true},
			[]string{"no_new_privs", "setsid", "landlock-v7", "seccomp", "no_caps"}, []string{"netns", "pidns"}},
		{"full-access", &sandbox.Profile{Unrestricted: true, Limits: sandbox.Limits{NoFile: 64}}, Capabilities{},
			[]string{"no_new_privs", "setsid", "rlimits"}, nil},
		{"no setsid", &sandbox.Profile{Unrestricted: true, NoSetsid: true}, full,
			[]string{"no_new_privs"}, nil},
		{"built without the helper", ws, Capabilities{LandlockABI: 7, Seccomp: true, Root: true, Helper: "no helper"},
			[]string{}, []string{"helper"}},
		{"full-access needs no helper", &sandbox.Profile{Unrestricted: true}, Capabilities{Helper: "no helper"},
			[]string{"no_new_privs", "setsid"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			layers, miss := PlanLayers(tt.p, tt.caps)
			if !slices.Equal(layers, tt.layers) || !slices.Equal(miss, tt.miss) {
				t.Errorf("PlanLayers = %v, missing %v; want %v, missing %v", layers, miss, tt.layers, tt.miss)
			}
		})
	}
}
