package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/gatedexec/gatedexec/internal/snapshot"
)

// Managed is the ceiling a managed system layer sets (DESIGN §11): what a
// run may use at most, whatever the lower layers, the environment and the
// flags ask for.
type Managed struct {
	// Dir is the managed layer's directory; File its config.toml.
	Dir, File string
	// AllowedProfiles, when non-nil, are the only profile names a run
	// may use; they resolve from the managed layer or the built-ins only.
	AllowedProfiles []string
	// ApprovalPolicy is the loosest approval policy allowed; "" is any.
	ApprovalPolicy string
	// AuditLog is the log every decision is appended to, whatever else
	// is asked for; AuditFsync makes each of its records durable before
	// the command runs, whatever a lower layer says.
	AuditLog   string
	AuditFsync bool
	// AllowFullAccess lets a run use an unrestricted profile.
	AllowFullAccess bool
	// AllowUserRules and AllowWorkspaceRules say whether the allow rules
	// of those layers count; false keeps their prompt and forbidden rules.
	AllowUserRules, AllowWorkspaceRules bool
	// Approver, when set, is the approver every prompt goes to (tty,
	// deny, defer or exec:CMD): the managed layer's approver key pins it,
	// as its approval_policy bounds the policy, since an approver that
	// always answers yes would make every managed prompt an allow. A
	// lower layer, the environment or a flag may only tighten it to deny.
	Approver string
	// Origin says where each key was set ("file:line:col"), for messages.
	Origin map[string]string
	// Digest is the digest of the managed layer's snapshot (every entry
	// and file, symlinks followed), recorded with every decision so that
	// a record says which ceiling held.
	Digest string

	// settings are the layer's config.toml as the snapshot holds it.
	settings Settings
}

// Where names the managed key for a message: "allow_full_access
// (/etc/gatedexec/config.toml:4)", or the file when the key is unset.
func (m *Managed) Where(key string) string {
	if o, ok := m.Origin[key]; ok {
		return key + " (" + o + ")"
	}
	return key + " (unset in " + m.File + ")"
}

// CheckProgram fails unless path, the program of a pinned exec approver,
// is absolute and, with every directory and symlink its path passes
// through, root's and writable by nobody else, as the managed layer
// itself must be: a program the user could replace would answer for them.
func (m *Managed) CheckProgram(path string) error {
	if !filepath.IsAbs(path) {
		// A PATH lookup is the user's to steer.
		return fmt.Errorf("%s: program %q is not an absolute path", m.Where(KeyApprover), path)
	}
	if _, err := resolveRootOnly(path); err != nil {
		return fmt.Errorf("%s: program %s: %w", m.Where(KeyApprover), path, err)
	}
	return nil
}

// DefaultSystemDir is the system layer's standard directory.
const DefaultSystemDir = "/etc/gatedexec"

// checkManagedKeys refuses managed keys in a file that does not say
// managed = true: without it they would be read as a ceiling nobody set.
func (s Settings) checkManagedKeys() error {
	keys := s.managedKeys()
	if len(keys) == 0 {
		return nil
	}
	if s.Managed == nil || !*s.Managed {
		for _, k := range keys {
			if k != KeyManaged {
				return fmt.Errorf("%s: %s is only read with managed = true", s.Origin[k], k)
			}
		}
		return nil
	}
	if s.AuditLog == "" {
		return fmt.Errorf("%s: managed = true needs audit_log: a managed layer audits every decision", s.Origin[KeyManaged])
	}
	switch s.ApprovalPolicy {
	case "", "untrusted", "on-request", "on-failure", "never":
	default:
		// An unknown ceiling would let every policy under it.
		return fmt.Errorf("%s: approval_policy %q is not untrusted, on-request, on-failure or never", s.Origin[KeyApprovalPolicy], s.ApprovalPolicy)
	}
	switch a := s.Approver; {
	case a == "", a == "tty", a == "deny", a == "defer":
	case strings.HasPrefix(a, "exec:"):
		// Its program is checked where the words are split (the engine):
		// an absolute path only root can change.
	default:
		// An approver that cannot be told would be no pin at all.
		return fmt.Errorf("%s: approver %q is not tty, deny, defer or exec:CMD", s.Origin[KeyApprover], a)
	}
	for _, p := range s.AllowedProfiles {
		if p == "" || strings.ContainsAny(p, "/\\") || strings.HasSuffix(p, ".toml") {
			return fmt.Errorf("%s: allowed_profiles: %q is not a profile name", s.Origin[KeyAllowedProfiles], p)
		}
	}
	return nil
}

// refuseManagedKeys fails when s, read from a layer other than the
// system one, sets a managed key: only the system layer can be a ceiling.
func refuseManagedKeys(layer string, s Settings) error {
	if keys := s.managedKeys(); len(keys) > 0 {
		return fmt.Errorf("%s: %s: only the system layer (%s) can be managed, not the %s layer", s.Origin[keys[0]], keys[0], DefaultSystemDir, layer)
	}
	return nil
}

// RefuseManagedKeys fails when s, a settings file given above the layers
// (--config), sets a managed key.
func RefuseManagedKeys(s Settings) error { return refuseManagedKeys("--config", s) }

// managedOf builds the ceiling of the system layer dir whose settings, as
// first read from the disk, are s; nil when the layer is not managed. The
// directory must be a place only root can change, else it is no ceiling
// and loading fails. Once that is checked the layer is read again, once,
// into the snapshot it returns: its config.toml, rules and profiles are
// loaded from that snapshot and its digest is the one recorded, so that
// what decides is what was checked and hashed.
func managedOf(dir string, s Settings) (*Managed, *snapshot.Tree, error) {
	if s.Managed == nil || !*s.Managed {
		return nil, nil, nil
	}
	if err := checkRootOwned(dir); err != nil {
		return nil, nil, fmt.Errorf("managed layer %s: %w", dir, err)
	}
	tree, err := snapshot.Take(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("managed layer %s: %w", dir, err)
	}
	if s, err = readSettings(tree, filepath.Join(dir, "config.toml")); err != nil {
		return nil, nil, fmt.Errorf("managed layer %s: %w", dir, err)
	}
	if s.Managed == nil || !*s.Managed {
		// Only root can have changed it; what it meant is unclear.
		return nil, nil, fmt.Errorf("managed layer %s: config.toml changed while it was read: run again", dir)
	}
	orTrue := func(b *bool) bool { return b == nil || *b }
	m := &Managed{
		Dir: dir, File: filepath.Join(dir, "config.toml"),
		AllowedProfiles:     slices.Clone(s.AllowedProfiles),
		ApprovalPolicy:      s.ApprovalPolicy,
		AuditLog:            s.AuditLog,
		AuditFsync:          s.AuditFsync != nil && *s.AuditFsync,
		AllowFullAccess:     s.AllowFullAccess != nil && *s.AllowFullAccess,
		AllowUserRules:      orTrue(s.AllowUserRules),
		AllowWorkspaceRules: orTrue(s.AllowWorkspaceRules),
		Approver:            s.Approver,
		Origin:              s.Origin,
		Digest:              tree.Digest(),
		settings:            s,
	}
	return m, tree, nil
}

// checkRootOwned fails unless dir, every directory and symlink its path
// passes through and everything it holds (what its symlinks point at
// included) are owned by root and writable by nobody else (a directory
// passed through may be sticky, as /tmp is, where nobody else can rename
// what root put in it), and, when gatedexec does not run as root, unless
// the user cannot write dir.
func checkRootOwned(dir string) error {
	real, err := resolveRootOnly(dir)
	if err != nil {
		return err
	}
	if os.Geteuid() != 0 && writable(real) {
		return fmt.Errorf("%s is writable by this user", real)
	}
	n := 0
	return checkTree(real, &n)
}

// systemDir returns the system layer's directory: override
// (GATEDEXEC_SYSTEM_DIR) unless the standard directory std is managed,
// since a variable anyone can set must not lift a ceiling. The second
// result, when not empty, says the override was refused.
func systemDir(std, override string) (string, string) {
	if override == "" || filepath.Clean(override) == filepath.Clean(std) {
		return std, ""
	}
	file := filepath.Join(std, "config.toml")
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return override, ""
	}
	// Read as the loaders read it: without blocking on a FIFO, and only
	// a regular file.
	src, err := snapshot.Disk{}.ReadFile(file, maxSettingsSize)
	var probe struct {
		Managed bool `toml:"managed"`
	}
	// Unreadable, a link to nothing, not a file or unparsable: the
	// managed layer may be there, and loading it will say what is wrong
	// with it.
	switch {
	case err != nil || toml.Unmarshal(src, &probe) != nil:
		return std, fmt.Sprintf("GATEDEXEC_SYSTEM_DIR=%s (%s cannot be read as an unmanaged layer)", override, file)
	case probe.Managed:
		return std, fmt.Sprintf("GATEDEXEC_SYSTEM_DIR=%s (%s is managed)", override, std)
	}
	return override, ""
}
