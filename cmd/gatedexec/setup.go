package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/profiles"
)

// layers reads the configuration layers for pl, plus --config FILE (a
// settings file above the layers) when given. Errors exit 78.
func layers(pl place, configFile string) (*config.Config, config.Dirs, error) {
	dirs := config.DefaultDirs(os.Getenv, userHome(), pl.Workspace)
	cfg, err := config.Load(dirs, trustStore(dirs))
	if err != nil {
		return nil, dirs, withCode(exitConfig, err)
	}
	if configFile != "" {
		s, err := config.ReadSettingsFile(configFile)
		if err != nil {
			return nil, dirs, withCode(exitConfig, fmt.Errorf("--config: %w", err))
		}
		cfg.Settings = cfg.Settings.Over(s)
	}
	return cfg, dirs, nil
}

// trustStore is where `gatedexec trust` records trusted workspaces.
func trustStore(d config.Dirs) *config.TrustStore {
	return &config.TrustStore{Dir: filepath.Join(d.State, "trust")}
}

// layeredPolicy loads the rules of every configuration layer (an untrusted
// layer contributing only what can make decisions stricter) and then the
// -r paths. Any bad file means no policy (exit 78).
func layeredPolicy(cfg *config.Config, f *rulesFlags) (*execpolicy.Policy, error) {
	loader := execpolicy.Loader{HomeDir: userHome()}
	p := execpolicy.NewPolicy()
	for _, src := range cfg.Rules {
		lp, err := loader.LoadFiles(src.Path)
		if err != nil {
			return nil, withCode(exitConfig, err)
		}
		if !src.AllowRules {
			lp = lp.RestrictOnly()
		}
		p.Merge(lp)
	}
	fp, err := loader.LoadFiles(ruleSources(f)...)
	if err != nil {
		return nil, withCode(exitConfig, err)
	}
	p.Merge(fp)
	return p, nil
}

// profileLoader builds the profile loader for the place pl, looking in the
// profile directories of cfg's trusted layers above the built-ins.
func profileLoader(pl place, cfg *config.Config) *profiles.Loader {
	home := userHome()
	return &profiles.Loader{
		Dirs: cfg.ProfileDirs,
		Vars: profiles.Vars{
			Workspace: pl.Workspace,
			Cwd:       pl.Cwd,
			Home:      home,
			TmpDir:    os.Getenv("TMPDIR"),
			Getenv:    os.Getenv,
		},
	}
}

// newProfileLoader reads the configuration layers of pl and builds its
// profile loader, so that every command sees the same profiles as run.
func newProfileLoader(pl place) (*profiles.Loader, error) {
	cfg, _, err := layers(pl, "")
	if err != nil {
		return nil, err
	}
	return profileLoader(pl, cfg), nil
}

// userRulesFile is the file an "always" approval appends to.
func userRulesFile(d config.Dirs) string {
	return filepath.Join(d.User, "rules", "default.rules")
}
