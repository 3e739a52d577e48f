package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/profiles"
)

// loadLayers reads the configuration layers for workspace, plus
// configFile (--config or GATEDEXEC_CONFIG: a settings file above the
// layers) when its value is set. Errors are ErrConfig.
func loadLayers(getenv func(string) string, workspace string, configFile setting) (*config.Config, error) {
	dirs, err := config.DefaultDirs(getenv, workspace)
	if err != nil {
		return nil, configErr(err)
	}
	cfg, err := config.Load(dirs, &config.TrustStore{Dir: dirs.TrustDir()})
	if err != nil {
		return nil, configErr(err)
	}
	if configFile.value != "" {
		s, err := config.ReadSettingsFile(configFile.value)
		if err == nil {
			err = config.RefuseManagedKeys(s)
		}
		if err != nil {
			return nil, configErr(fmt.Errorf("%s: %w", configFile.from, err))
		}
		cfg.Settings = cfg.Settings.Over(s)
	}
	return cfg, nil
}

// loadPolicy loads the rules of every configuration layer (an untrusted
// layer contributing only what can make decisions stricter) and then the
// rules paths. Any bad file means no policy (ErrConfig). Under a managed
// layer, the rules paths count as the user's (allow_user_rules), and no
// lower layer adds paths to a host_executable the managed layer declared;
// what was refused is appended to refused.
func loadPolicy(getenv func(string) string, cfg *config.Config, build string, paths []string, refused *[]string) (*execpolicy.Policy, error) {
	loader := execpolicy.Loader{HomeDir: cfg.Dirs.Home, CacheDir: rulesCacheDir(getenv, cfg.Dirs), CacheBuild: build, Files: cfg.Files}
	p := execpolicy.NewPolicy()
	var managedHosts []string
	below := func(lp *execpolicy.Policy, what string) *execpolicy.Policy {
		lp, dropped := lp.WithoutHostExecutables(managedHosts)
		if len(dropped) > 0 {
			*refused = append(*refused, fmt.Sprintf("host_executable paths for %s from %s (declared by the managed layer)", strings.Join(dropped, ", "), what))
		}
		if (ceiling{cfg.Managed}).dropsNetworkAllows() {
			// The managed profiles' hosts are the network's ceiling,
			// as an escalation to a host is refused (refusesEscalation).
			if lp, dropped = lp.WithoutNetworkAllows(); len(dropped) > 0 {
				*refused = append(*refused, fmt.Sprintf("the allow network_rule for %s from %s (%s)", strings.Join(dropped, ", "), what, cfg.Managed.Where(config.KeyAllowedProfiles)))
			}
		}
		return lp
	}
	for _, src := range cfg.Rules {
		l := loader
		// An untrusted layer arrived with the repository: its files get
		// the literal subset, so that they cannot exhaust memory.
		l.Restricted = !src.AllowRules
		if src.Managed {
			// The cache is the user's: an entry there, checksummed but
			// not signed, could stand for the managed rules with a
			// forbidden rule taken out. The ceiling is compiled from
			// its own files on every run.
			l.CacheDir = ""
		}
		lp, err := l.LoadFiles(src.Path)
		if err != nil {
			return nil, configErr(err)
		}
		if !src.AllowRules {
			lp = lp.RestrictOnly()
		}
		if src.Managed {
			managedHosts = lp.HostExecutableNames()
		} else {
			lp = below(lp, src.Path)
		}
		p.Merge(lp)
	}
	fp, err := loader.LoadFiles(paths...)
	if err != nil {
		return nil, configErr(err)
	}
	if len(paths) > 0 && !cfg.AllowsUserRules() {
		fp = fp.RestrictOnly()
		*refused = append(*refused, fmt.Sprintf("the allow rules of %s (%s)", strings.Join(paths, ", "), cfg.Managed.Where(config.KeyAllowUserRules)))
	}
	p.Merge(below(fp, strings.Join(paths, ", ")))
	return p, nil
}

// cacheBuild returns the build identity the caches key on
// (execpolicy.BuildIdentity of version), or "" when no cache is on: it
// costs an executable lookup and a stat, which a start without a cache
// need not pay, and one that has caches pays once for all of them.
func cacheBuild(getenv func(string) string, d config.Dirs, version string) string {
	if rulesCacheDir(getenv, d) == "" && profilesCacheDir(getenv, d) == "" {
		return ""
	}
	return execpolicy.BuildIdentity(version)
}

// profileLoader builds the profile loader for a place, looking in the
// profile directories of cfg's trusted layers above the built-ins; build
// (cacheBuild) turns its parse cache on, "" leaves it off.
func profileLoader(getenv func(string) string, pl Place, cfg *config.Config, build string) *profiles.Loader {
	l := &profiles.Loader{
		Dirs:  cfg.ProfileDirs,
		Files: cfg.Files,
		Vars: profiles.Vars{
			Workspace: pl.Workspace,
			Cwd:       pl.Cwd,
			Home:      cfg.Dirs.Home,
			TmpDir:    getenv("TMPDIR"),
			Getenv:    getenv,
		},
	}
	// Under a managed layer the profiles are parsed on every run: the
	// cache is the user's, its entries checksummed but not signed, and one
	// could stand for a profile the ceiling allows (read-only) with more
	// access in it, as one could for the managed rules.
	if build != "" && cfg.Managed == nil {
		l.CacheDir, l.CacheBuild = profilesCacheDir(getenv, cfg.Dirs), build
	}
	return l
}

// ProfileLoader reads the configuration layers of pl and builds its
// profile loader, so that every command sees the same profiles as run.
func ProfileLoader(pl Place) (*profiles.Loader, error) {
	cfg, err := loadLayers(os.Getenv, pl.Workspace, setting{})
	if err != nil {
		return nil, err
	}
	return profileLoader(os.Getenv, pl, cfg, ""), nil
}

// userRulesFile is the file an "always" approval appends to.
func userRulesFile(d config.Dirs) string {
	return filepath.Join(d.User, "rules", "default.rules")
}

// rulesCacheDir is where compiled rules are cached:
// $XDG_CACHE_HOME/gatedexec/rules, by default ~/.cache/gatedexec/rules.
// GATEDEXEC_NO_RULES_CACHE or GATEDEXEC_NO_CACHE set to anything turns
// it off (see cacheRoot).
func rulesCacheDir(getenv func(string) string, d config.Dirs) string {
	if getenv("GATEDEXEC_NO_RULES_CACHE") != "" {
		return ""
	}
	return cacheRoot(getenv, d, "rules")
}

// profilesCacheDir is where parsed profile files are cached:
// $XDG_CACHE_HOME/gatedexec/profiles. GATEDEXEC_NO_CACHE turns it off.
func profilesCacheDir(getenv func(string) string, d config.Dirs) string {
	return cacheRoot(getenv, d, "profiles")
}

// scanCacheDir is where the scan of a workspace for changed git control
// files keeps what it read between runs (sandbox.Profile.ScanCache):
// $XDG_CACHE_HOME/gatedexec/scans, its links resolved by r, for
// sandbox.WithScanCache finds it among the control paths.
func scanCacheDir(getenv func(string) string, d config.Dirs, r *resolver) string {
	dir := cacheRoot(getenv, d, "scans")
	if dir == "" {
		return ""
	}
	return r.existing(dir)
}

// cacheRoot returns the directory sub of gatedexec's cache, or "" when
// caches are off: GATEDEXEC_NO_CACHE set to anything turns every cache
// off, as does a base directory ($XDG_CACHE_HOME, or the home directory)
// that does not exist: a cache is no reason to create a home directory.
func cacheRoot(getenv func(string) string, d config.Dirs, sub string) string {
	if getenv("GATEDEXEC_NO_CACHE") != "" || !filepath.IsAbs(d.Cache) {
		return ""
	}
	base := filepath.Dir(d.Cache)
	if base == filepath.Join(d.Home, ".cache") {
		base = d.Home
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return ""
	}
	return filepath.Join(d.Cache, sub)
}

// CheckRuleProfiles fails (ErrConfig) when a rule of p names a profile l
// cannot resolve, naming the rule's file:line:col: the rule is what is
// wrong, and it must fail where the rules load, not only when it matches.
func CheckRuleProfiles(p *execpolicy.Policy, l *profiles.Loader) error {
	for _, ref := range p.ProfileRefs() {
		if _, err := l.Resolve(ref.Name); err != nil {
			return configErr(fmt.Errorf("%s: profile=%q: %w", ref.Source, ref.Name, err))
		}
	}
	return nil
}
