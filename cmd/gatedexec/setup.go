package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/profiles"
)

// layers reads the configuration layers for pl, plus configFile (--config
// or GATEDEXEC_CONFIG: a settings file above the layers) when its value is
// set. Errors exit 78.
func layers(pl place, configFile setting) (*config.Config, config.Dirs, error) {
	dirs, err := config.DefaultDirs(os.Getenv, pl.Workspace)
	if err != nil {
		return nil, dirs, withCode(exitConfig, err)
	}
	cfg, err := config.Load(dirs, trustStore(dirs))
	if err != nil {
		return nil, dirs, withCode(exitConfig, err)
	}
	if configFile.value != "" {
		s, err := config.ReadSettingsFile(configFile.value)
		if err != nil {
			return nil, dirs, withCode(exitConfig, fmt.Errorf("%s: %w", configFile.from, err))
		}
		cfg.Settings = cfg.Settings.Over(s)
	}
	return cfg, dirs, nil
}

// trustStore is where `gatedexec trust` records trusted workspaces.
func trustStore(d config.Dirs) *config.TrustStore {
	return &config.TrustStore{Dir: d.TrustDir()}
}

// layeredPolicy loads the rules of every configuration layer (an untrusted
// layer contributing only what can make decisions stricter) and then the
// -r paths. Any bad file means no policy (exit 78).
func layeredPolicy(cfg *config.Config, f *rulesFlags) (*execpolicy.Policy, error) {
	loader := execpolicy.Loader{HomeDir: cfg.Dirs.Home, CacheDir: rulesCacheDir(os.Getenv, cfg.Dirs), Files: cfg.Files}
	if loader.CacheDir != "" {
		loader.CacheBuild = execpolicy.BuildIdentity(version)
	}
	p := execpolicy.NewPolicy()
	for _, src := range cfg.Rules {
		l := loader
		// An untrusted layer arrived with the repository: its files get
		// the literal subset, so that they cannot exhaust memory.
		l.Restricted = !src.AllowRules
		lp, err := l.LoadFiles(src.Path)
		if err != nil {
			return nil, withCode(exitConfig, err)
		}
		if !src.AllowRules {
			lp = lp.RestrictOnly()
		}
		p.Merge(lp)
	}
	fp, err := loader.LoadFiles(f.paths...)
	if err != nil {
		return nil, withCode(exitConfig, err)
	}
	p.Merge(fp)
	return p, nil
}

// profileLoader builds the profile loader for the place pl, looking in the
// profile directories of cfg's trusted layers above the built-ins.
func profileLoader(pl place, cfg *config.Config) *profiles.Loader {
	return &profiles.Loader{
		Dirs:  cfg.ProfileDirs,
		Files: cfg.Files,
		Vars: profiles.Vars{
			Workspace: pl.Workspace,
			Cwd:       pl.Cwd,
			Home:      cfg.Dirs.Home,
			TmpDir:    os.Getenv("TMPDIR"),
			Getenv:    os.Getenv,
		},
	}
}

// newProfileLoader reads the configuration layers of pl and builds its
// profile loader, so that every command sees the same profiles as run.
func newProfileLoader(pl place) (*profiles.Loader, error) {
	cfg, _, err := layers(pl, setting{})
	if err != nil {
		return nil, err
	}
	return profileLoader(pl, cfg), nil
}

// userRulesFile is the file an "always" approval appends to.
func userRulesFile(d config.Dirs) string {
	return filepath.Join(d.User, "rules", "default.rules")
}

// rulesCacheDir is where compiled rules are cached:
// $XDG_CACHE_HOME/gatedexec/rules, by default ~/.cache/gatedexec/rules.
// GATEDEXEC_NO_RULES_CACHE set to anything turns the cache off, as does a
// base directory ($XDG_CACHE_HOME, or the home directory) that does not
// exist: a cache is no reason to create a home directory.
func rulesCacheDir(getenv func(string) string, d config.Dirs) string {
	if getenv("GATEDEXEC_NO_RULES_CACHE") != "" || !filepath.IsAbs(d.Cache) {
		return ""
	}
	base := filepath.Dir(d.Cache)
	if base == filepath.Join(d.Home, ".cache") {
		base = d.Home
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return ""
	}
	return filepath.Join(d.Cache, "rules")
}

// controlPaths lists gatedexec's own files for sandbox.WithControl: the
// system and user layers, the state directory (trust records, sessions),
// the rules cache, and extra (the -r rules files, the audit log). The
// workspace's .gatedexec is not among them: changing it revokes the
// workspace's trust, which only makes its rules stricter. A path that
// cannot be made absolute is an error, not one fewer protected file.
func controlPaths(d config.Dirs, extra ...string) ([]string, error) {
	paths := []string{d.System, d.User, d.State, rulesCacheDir(os.Getenv, d), d.Sessions()}
	var out []string
	for _, p := range append(paths, extra...) {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, withCode(exitInternal, fmt.Errorf("control path %s: %w", p, err))
		}
		out = append(out, resolveExisting(abs))
	}
	return out, nil
}

// existing returns path when something is there, else "". A result file
// not made yet is no control path: held by an empty directory it could not
// be written, and its write, by descriptor and rename, follows no link the
// command may put there.
func existing(path string) string {
	if _, err := os.Lstat(path); path == "" || err != nil {
		return ""
	}
	return path
}

// profileFile returns nameOrFile when it names a profile file, else "".
func profileFile(nameOrFile string) string {
	if profiles.IsFile(nameOrFile) {
		return nameOrFile
	}
	return ""
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// the absolute path p, so that it compares with the profile's resolved
// paths; the rest is kept as written.
func resolveExisting(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// checkRuleProfiles fails (78) when a rule of p names a profile l cannot
// resolve, naming the rule's file:line:col: the rule is what is wrong,
// and it must fail where the rules load, not only when it matches.
func checkRuleProfiles(p *execpolicy.Policy, l *profiles.Loader) error {
	for _, ref := range p.ProfileRefs() {
		if _, err := l.Resolve(ref.Name); err != nil {
			return withCode(exitConfig, fmt.Errorf("%s: profile=%q: %w", ref.Source, ref.Name, err))
		}
	}
	return nil
}
