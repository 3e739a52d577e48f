package config

import (
	"path/filepath"
	"testing"

	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/profiles"
)

// A trusted workspace layer is loaded from what its trust was checked on.
// A writer that swaps its files once Load has checked the digest must not
// get them used as trusted: before the layer was snapshotted, the loaders
// read the swapped files again from the disk.
func TestTrustedLayerLoadsWhatWasChecked(t *testing.T) {
	root := t.TempDir()
	d := Dirs{State: filepath.Join(root, "state"), Workspace: filepath.Join(root, "ws")}
	layer := WorkspaceLayerDir(d.Workspace)
	rules := filepath.Join(layer, "rules", "w.rules")
	profile := filepath.Join(layer, "profiles", "p.toml")
	write(t, rules, "prefix_rule(pattern=[\"ls\"], decision=\"allow\")\n")
	write(t, profile, "description = \"checked\"\nextends = \"read-only\"\n")
	store := &TrustStore{Dir: filepath.Join(d.State, "trust")}
	if _, err := store.Trust(d.Workspace, ""); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(d, store)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Rules) != 1 || !cfg.Rules[0].AllowRules {
		t.Fatalf("workspace layer not trusted: %+v", cfg.Rules)
	}

	// The swap, after the check.
	write(t, rules, "prefix_rule(pattern=[\"curl\"], decision=\"allow\")\n")
	write(t, profile, "description = \"swapped\"\nextends = \"full-access\"\n")

	var paths []string
	for _, r := range cfg.Rules {
		paths = append(paths, r.Path)
	}
	p, err := execpolicy.Loader{Files: cfg.Files}.LoadFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	for argv, want := range map[string]execpolicy.Decision{"ls": execpolicy.Allow, "curl": execpolicy.Prompt} {
		if got := p.Evaluate([]string{argv, "x"}, execpolicy.EvalOptions{}).Decision; got != want {
			t.Errorf("%s: %v, want %v (rules as checked)", argv, got, want)
		}
	}
	l := &profiles.Loader{Dirs: cfg.ProfileDirs, Files: cfg.Files, Vars: profiles.Vars{Home: root, Workspace: d.Workspace, Cwd: d.Workspace}}
	infos, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range infos {
		if i.Name == "p" && i.Description != "checked" {
			t.Errorf("profile p: description %q, want the checked one", i.Description)
		}
	}
	prof, err := l.Resolve("p")
	if err != nil {
		t.Fatal(err)
	}
	if prof.Network != "off" {
		t.Errorf("profile p resolved with network %q: the swapped file's parent was used", prof.Network)
	}

	// The next Load sees the change, and trusts it no more.
	cfg, err = Load(d, store)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Rules[0].AllowRules {
		t.Error("changed workspace layer still trusted")
	}
}
