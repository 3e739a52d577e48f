package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatedexec/gatedexec/internal/snapshot"
	"github.com/gatedexec/gatedexec/internal/userdirs"
	"github.com/gatedexec/gatedexec/profiles"
)

// Dirs names the directories configuration is read from. Build it with
// DefaultDirs or fill it in explicitly (tests do).
type Dirs struct {
	// System is the machine-wide layer, normally /etc/gatedexec.
	System string
	// User is the user's layer, normally ~/.config/gatedexec.
	User string
	// State is where trust records and sessions live, normally
	// ~/.local/state/gatedexec.
	State string
	// Cache is gatedexec's cache directory, normally ~/.cache/gatedexec.
	Cache string
	// Home is the user's home directory, what "~/" means.
	Home string
	// Workspace is the workspace directory; its layer is Workspace/.gatedexec.
	Workspace string
	// SystemRefused, when set, says that GATEDEXEC_SYSTEM_DIR was
	// refused because the standard system layer is managed.
	SystemRefused string
}

// DefaultDirs returns the standard directories for the environment read
// through getenv. GATEDEXEC_SYSTEM_DIR replaces /etc/gatedexec, so that
// tests and packagers can point elsewhere, unless /etc/gatedexec is
// managed: a variable must not lift the ceiling. Without an absolute home (HOME
// unset and no passwd entry) it fails, wrapping userdirs.ErrNoHome (see
// ErrNoHome): a relative user layer would be the current directory's.
func DefaultDirs(getenv func(string) string, workspace string) (Dirs, error) {
	u, err := userdirs.Resolve(getenv)
	if err != nil {
		return Dirs{}, err
	}
	d := Dirs{User: u.Config, State: u.State, Cache: u.Cache, Home: u.Home, Workspace: workspace}
	d.System, d.SystemRefused = systemDir(DefaultSystemDir, getenv("GATEDEXEC_SYSTEM_DIR"))
	return d, nil
}

// ErrNoHome is wrapped by DefaultDirs's error when no home directory can
// be found.
var ErrNoHome = userdirs.ErrNoHome

// Sessions is where session approvals live.
func (d Dirs) Sessions() string { return filepath.Join(d.State, "sessions") }

// TrustDir is where `gatedexec trust` records trusted workspaces.
func (d Dirs) TrustDir() string { return filepath.Join(d.State, "trust") }

// Deferred is where deferred escalation plans wait for the host's answer.
func (d Dirs) Deferred() string { return filepath.Join(d.State, "deferred") }

// WorkspaceLayerDir returns the workspace's own configuration directory.
func WorkspaceLayerDir(workspace string) string {
	return filepath.Join(workspace, ".gatedexec")
}

// Layer is one configuration directory that exists.
type Layer struct {
	// Name is "system", "user" or "workspace".
	Name string
	Dir  string
	// Trusted is false only for a workspace layer the user has not trusted
	// (or whose contents changed since).
	Trusted bool
}

// RuleSource is a rules file or directory contributed by a layer.
type RuleSource struct {
	Path string
	// AllowRules is false when the layer is untrusted, or the managed
	// ceiling refuses its allow rules: only its prompt and forbidden
	// rules may be used.
	AllowRules bool
	// Managed is true for the managed system layer's rules.
	Managed bool
}

// Config is what the layers say, merged.
type Config struct {
	// Dirs are the directories the layers were read from.
	Dirs   Dirs
	Layers []Layer
	// Settings merges the config.toml files, higher layers winning key by key.
	Settings Settings
	// Rules are the rules directories of the layers, lowest first.
	Rules []RuleSource
	// ProfileDirs are the profile directories of the trusted layers, lowest first.
	ProfileDirs []string
	// Warnings are things the user should be told once (an ignored
	// untrusted workspace layer).
	Warnings []string
	// Managed is the ceiling of a managed system layer, nil without one.
	Managed *Managed
	// Refused lists what the managed layer refused of the lower layers
	// ("the user layer's allow rules (allow_user_rules = false ...)").
	Refused []string
	// Files reads the files Rules, ProfileDirs and the layers name: a
	// managed system layer and a trusted workspace layer from the
	// snapshots they were checked on, everything else from the disk.
	Files snapshot.FS

	// trees are the snapshots Files answers from.
	trees snapshot.Trees
}

// Load reads the layers named by d. A layer directory that does not exist
// is skipped; one that exists but cannot be read, or a config.toml that does
// not parse, is an error: a half-read configuration must not run anything.
func Load(d Dirs, trust *TrustStore) (*Config, error) {
	c := &Config{Dirs: d, Files: snapshot.Disk{}}
	if d.SystemRefused != "" {
		c.Refused = append(c.Refused, d.SystemRefused)
	}
	type cand struct{ name, dir string }
	cands := []cand{{"system", d.System}, {"user", d.User}}
	if d.Workspace != "" {
		ws := WorkspaceLayerDir(d.Workspace)
		if ws != d.User && ws != d.System {
			cands = append(cands, cand{"workspace", ws})
		}
	}
	for _, cd := range cands {
		if cd.dir == "" {
			continue
		}
		if !filepath.IsAbs(cd.dir) {
			return nil, fmt.Errorf("%s config layer %s: not an absolute path", cd.name, cd.dir)
		}
		ok, err := isDir(snapshot.Disk{}, cd.dir)
		if err != nil {
			return nil, fmt.Errorf("%s config layer %s: %w", cd.name, cd.dir, err)
		}
		if !ok {
			continue
		}
		l := Layer{Name: cd.name, Dir: cd.dir, Trusted: true}
		if cd.name == "workspace" {
			// An empty .gatedexec is what the sandbox leaves as the mount
			// point that keeps it read-only; it configures nothing.
			if entries, err := os.ReadDir(cd.dir); err == nil && len(entries) == 0 {
				continue
			}
			tree, err := trust.trusted(d.Workspace)
			if err != nil {
				return nil, err
			}
			if l.Trusted = tree != nil; l.Trusted {
				// The tree answers for the layer's files only; every
				// other path is read from the disk (or the managed
				// layer's snapshot).
				c.trees = append(c.trees, tree)
				c.Files = c.trees
			}
		}
		if err := c.addLayer(l); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// addLayer merges what l holds into c.
func (c *Config) addLayer(l Layer) error {
	c.Layers = append(c.Layers, l)
	if !l.Trusted {
		return c.addRules(l)
	}
	profileDir := filepath.Join(l.Dir, "profiles")
	hasProfiles, err := isDir(c.Files, profileDir)
	if err != nil {
		return fmt.Errorf("%s: %w", profileDir, err)
	}
	file := filepath.Join(l.Dir, "config.toml")
	s, err := readSettings(c.Files, file)
	if errors.Is(err, fs.ErrNotExist) {
		err, s = nil, Settings{}
		if _, lerr := os.Lstat(file); l.Name == "system" && lerr == nil {
			// A link to nothing: what the system layer meant to say,
			// perhaps managed = true, is not known.
			err = fmt.Errorf("%s: a symlink to nothing", file)
		}
	}
	if err != nil {
		return err
	}
	if l.Name == "system" {
		// The system layer is read first: its ceiling governs the rest.
		var tree *snapshot.Tree
		if c.Managed, tree, err = managedOf(l.Dir, s); err != nil {
			return err
		}
		if tree != nil {
			// From here on the layer is read from what was checked.
			c.trees = append(c.trees, tree)
			c.Files = c.trees
			s = c.Managed.settings
			if hasProfiles, err = isDir(c.Files, profileDir); err != nil {
				return fmt.Errorf("%s: %w", profileDir, err)
			}
		}
	} else if err := refuseManagedKeys(l.Name, s); err != nil {
		return err
	}
	if err := c.addRules(l); err != nil {
		return err
	}
	if hasProfiles {
		if l.Name != "system" && c.Managed != nil && c.Managed.AllowedProfiles != nil {
			// A lower layer's workspace-write could be anything: the
			// allowed names are the managed layer's or the built-ins.
			c.Refused = append(c.Refused, fmt.Sprintf("the profiles of %s (%s)", profileDir, c.Managed.Where(KeyAllowedProfiles)))
		} else {
			c.ProfileDirs = append(c.ProfileDirs, profileDir)
		}
	}
	if len(s.Origin) == 0 {
		return nil
	}
	if l.Name == "workspace" && profiles.IsFile(s.Profile) {
		// Trust covers .gatedexec only: a profile file elsewhere in the
		// workspace is one any command that writes there could change
		// into full-access for the next run, still trusted.
		return fmt.Errorf("%s: profile %q: a workspace layer names a profile of its profiles directory, not a file", s.Origin[KeyProfile], s.Profile)
	}
	c.Settings = c.Settings.Over(s)
	return nil
}

// addRules adds the rules directory of l, when it has one, once the
// system layer's ceiling is known.
func (c *Config) addRules(l Layer) error {
	rules := filepath.Join(l.Dir, "rules")
	hasRules, err := isDir(c.Files, rules)
	if err != nil {
		return fmt.Errorf("%s: %w", rules, err)
	}
	if hasRules {
		src := RuleSource{Path: rules, AllowRules: l.Trusted, Managed: l.Name == "system" && c.Managed != nil}
		if l.Trusted && !c.allowsRulesOf(l.Name) {
			src.AllowRules = false
			c.Refused = append(c.Refused, fmt.Sprintf("the allow rules of %s (%s)", rules, c.Managed.Where(rulesKey(l.Name))))
		}
		c.Rules = append(c.Rules, src)
	}
	if !l.Trusted {
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"workspace %s is not trusted: its allow rules, profiles and config are ignored (run `gatedexec trust` there to use them)",
			filepath.Dir(l.Dir)))
	}
	return nil
}

// allowsRulesOf says whether the managed ceiling lets the allow rules of
// the layer named layer count.
func (c *Config) allowsRulesOf(layer string) bool {
	m := c.Managed
	switch {
	case m == nil || layer == "system":
		return true
	case layer == "workspace":
		return m.AllowWorkspaceRules
	}
	return m.AllowUserRules
}

// AllowsUserRules says whether the allow rules of the user's own rules
// files (-r, and the "always" amendments) count under the ceiling.
func (c *Config) AllowsUserRules() bool { return c.allowsRulesOf("user") }

// rulesKey is the managed key that governs the rules of layer.
func rulesKey(layer string) string {
	if layer == "workspace" {
		return KeyAllowWorkspaceRules
	}
	return KeyAllowUserRules
}

// isDir reports whether path is a directory, treating "does not exist" as
// false and any other error as an error.
func isDir(fsys snapshot.FS, path string) (bool, error) {
	st, err := fsys.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return st.IsDir(), nil
}
