package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"github.com/gatedexec/gatedexec/internal/snapshot"
	"github.com/gatedexec/gatedexec/internal/tomlkeys"
	"github.com/gatedexec/gatedexec/profiles"
)

// Settings are the keys of config.toml. An empty string or nil pointer
// means "not set in this layer".
type Settings struct {
	// ApprovalPolicy is untrusted, on-request, on-failure or never.
	ApprovalPolicy string `toml:"approval_policy"`
	// Approver is tty, deny, defer or exec:CMD.
	Approver string `toml:"approver"`
	// ApproverTimeout bounds how long an exec approver may take to answer,
	// as a Go duration ("30s"); it must be positive.
	ApproverTimeout string `toml:"approver_timeout"`
	// Profile is the default sandbox profile's name or file.
	Profile string `toml:"profile"`
	// AuditLog is the audit log's path.
	AuditLog string `toml:"audit_log"`
	// AuditFsync makes every audit record durable before the command runs.
	AuditFsync *bool `toml:"audit_fsync"`

	// The managed keys (DESIGN §11) belong in the system layer's
	// config.toml, beside managed = true; see Managed.

	// Managed makes the system layer a ceiling that lower layers,
	// the environment and flags may only tighten.
	Managed *bool `toml:"managed"`
	// AllowedProfiles, when set, are the only profiles a run may use.
	AllowedProfiles []string `toml:"allowed_profiles"`
	// AllowFullAccess lets a run use an unrestricted profile (default
	// false when managed).
	AllowFullAccess *bool `toml:"allow_full_access"`
	// AllowUserRules and AllowWorkspaceRules, when false, keep only the
	// prompt and forbidden rules of the user's (and -r) and the
	// workspace's rules files (default true).
	AllowUserRules      *bool `toml:"allow_user_rules"`
	AllowWorkspaceRules *bool `toml:"allow_workspace_rules"`
	// Origin says where each key set here came from, as "file:line:col", so
	// that an error about its value can name it. Keys not set are absent.
	Origin map[string]string `toml:"-"`
}

// The keys of config.toml, as Settings' tags, Origin and the engine's
// lookups name them.
const (
	KeyApprovalPolicy  = "approval_policy"
	KeyApprover        = "approver"
	KeyApproverTimeout = "approver_timeout"
	KeyProfile         = "profile"
	KeyAuditLog        = "audit_log"
	KeyAuditFsync      = "audit_fsync"

	KeyManaged             = "managed"
	KeyAllowedProfiles     = "allowed_profiles"
	KeyAllowFullAccess     = "allow_full_access"
	KeyAllowUserRules      = "allow_user_rules"
	KeyAllowWorkspaceRules = "allow_workspace_rules"
)

// managedKeys lists the managed keys s sets, in the order of Settings.
func (m Settings) managedKeys() []string {
	var out []string
	if m.Managed != nil {
		out = append(out, KeyManaged)
	}
	if m.AllowedProfiles != nil {
		out = append(out, KeyAllowedProfiles)
	}
	if m.AllowFullAccess != nil {
		out = append(out, KeyAllowFullAccess)
	}
	if m.AllowUserRules != nil {
		out = append(out, KeyAllowUserRules)
	}
	if m.AllowWorkspaceRules != nil {
		out = append(out, KeyAllowWorkspaceRules)
	}
	return out
}

// ManagedKeyNames are the keys only a managed system layer sets; Over
// does not carry them, since they are a ceiling, not defaults.
var ManagedKeyNames = []string{KeyManaged, KeyAllowedProfiles, KeyAllowFullAccess, KeyAllowUserRules, KeyAllowWorkspaceRules}

// StringKeys are the keys of config.toml whose values are strings.
var StringKeys = []string{KeyApprovalPolicy, KeyApprover, KeyApproverTimeout, KeyProfile, KeyAuditLog}

// field returns the string field of key, nil for another key.
func (s *Settings) field(key string) *string {
	switch key {
	case KeyApprovalPolicy:
		return &s.ApprovalPolicy
	case KeyApprover:
		return &s.Approver
	case KeyApproverTimeout:
		return &s.ApproverTimeout
	case KeyProfile:
		return &s.Profile
	case KeyAuditLog:
		return &s.AuditLog
	}
	return nil
}

// Get returns the value of the string key, "" when unset or not a
// string key.
func (s Settings) Get(key string) string {
	if f := s.field(key); f != nil {
		return *f
	}
	return ""
}

// Over returns s with every key that hi sets replaced by hi's value.
func (s Settings) Over(hi Settings) Settings {
	// s is a copy, but its Origin map is shared with the caller's.
	s.Origin = maps.Clone(s.Origin)
	take := func(key string) {
		if o, ok := hi.Origin[key]; ok {
			if s.Origin == nil {
				s.Origin = map[string]string{}
			}
			s.Origin[key] = o
		} else {
			delete(s.Origin, key)
		}
	}
	for _, k := range StringKeys {
		if v := hi.Get(k); v != "" {
			*s.field(k) = v
			take(k)
		}
	}
	if hi.AuditFsync != nil {
		s.AuditFsync = hi.AuditFsync
		take(KeyAuditFsync)
	}
	return s
}

// maxSettingsSize bounds config.toml; a larger file is an error, not a hang.
const maxSettingsSize = 1 << 20

// ReadSettingsFile parses one config.toml. Unknown keys and wrong types are
// errors naming file:line:col.
func ReadSettingsFile(path string) (Settings, error) {
	return readSettings(snapshot.Disk{}, path)
}

// readSettings parses the config.toml at path as fsys holds it.
func readSettings(fsys snapshot.FS, path string) (Settings, error) {
	src, err := fsys.ReadFile(path, maxSettingsSize)
	if errors.Is(err, snapshot.ErrTooLarge) {
		return Settings{}, fmt.Errorf("%s: file larger than %d bytes", path, maxSettingsSize)
	}
	if err != nil {
		return Settings{}, err
	}
	return ParseSettings(path, src)
}

// ParseSettings parses config.toml source; name is used in errors.
func ParseSettings(name string, src []byte) (Settings, error) {
	if len(src) > maxSettingsSize {
		return Settings{}, fmt.Errorf("%s: file larger than %d bytes", name, maxSettingsSize)
	}
	var s Settings
	doc, err := tomlkeys.Decode(name, src, &s)
	if err != nil {
		return Settings{}, err
	}
	if len(doc.Unknown) > 0 {
		return Settings{}, tomlkeys.UnknownKey(name, doc.Unknown[0])
	}
	for _, e := range doc.Keys {
		if s.Origin == nil {
			s.Origin = map[string]string{}
		}
		s.Origin[e.Key.String()] = fmt.Sprintf("%s:%d:%d", name, e.Pos.Line, e.Pos.Col)
	}
	// Relative to what? The directory gatedexec happens to run in would
	// put the log somewhere else for every command, and take the profile
	// from whatever repository it runs in.
	if s.AuditLog != "" && !filepath.IsAbs(s.AuditLog) {
		return Settings{}, fmt.Errorf("%s: audit_log %q is not an absolute path", s.Origin[KeyAuditLog], s.AuditLog)
	}
	if s.ApproverTimeout != "" {
		if _, err := ParseTimeout(s.ApproverTimeout); err != nil {
			return Settings{}, fmt.Errorf("%s: approver_timeout: %w", s.Origin[KeyApproverTimeout], err)
		}
	}
	if profiles.IsFile(s.Profile) && !filepath.IsAbs(s.Profile) {
		return Settings{}, fmt.Errorf("%s: profile %q is a file but not an absolute path", s.Origin[KeyProfile], s.Profile)
	}
	if err := s.checkManagedKeys(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// ParseTimeout parses a timeout: a Go duration ("30s", "2m") that is
// positive. Zero or a negative duration is an error rather than "no
// limit", which would be the opposite of what was likely meant.
func ParseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("timeout %q is not positive", s)
	}
	return d, nil
}
