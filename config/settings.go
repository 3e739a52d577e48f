package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

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
	// Origin says where each key set here came from, as "file:line", so
	// that an error about its value can name it. Keys not set are absent.
	Origin map[string]string `toml:"-"`
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
	if hi.ApprovalPolicy != "" {
		s.ApprovalPolicy = hi.ApprovalPolicy
		take("approval_policy")
	}
	if hi.Approver != "" {
		s.Approver = hi.Approver
		take("approver")
	}
	if hi.ApproverTimeout != "" {
		s.ApproverTimeout = hi.ApproverTimeout
		take("approver_timeout")
	}
	if hi.Profile != "" {
		s.Profile = hi.Profile
		take("profile")
	}
	if hi.AuditLog != "" {
		s.AuditLog = hi.AuditLog
		take("audit_log")
	}
	if hi.AuditFsync != nil {
		s.AuditFsync = hi.AuditFsync
		take("audit_fsync")
	}
	return s
}

// maxSettingsSize bounds config.toml; a larger file is an error, not a hang.
const maxSettingsSize = 1 << 20

// ReadSettingsFile parses one config.toml. Unknown keys and wrong types are
// errors naming file:line.
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
	md, err := toml.Decode(string(src), &s)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return Settings{}, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, pe.Message)
		}
		return Settings{}, fmt.Errorf("%s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return Settings{}, fmt.Errorf("%s:%d: unknown key %q", name, keyLine(src, und[0]), k)
	}
	if k, want := tomlkeys.Inexact(&s, md.Keys()); k != nil {
		return Settings{}, fmt.Errorf("%s:%d: key %q is not spelt %q", name, keyLine(src, k), k.String(), want)
	}
	for _, k := range md.Keys() {
		if s.Origin == nil {
			s.Origin = map[string]string{}
		}
		s.Origin[k.String()] = fmt.Sprintf("%s:%d", name, keyLine(src, k))
	}
	// Relative to what? The directory gatedexec happens to run in would
	// put the log somewhere else for every command, and take the profile
	// from whatever repository it runs in.
	if s.AuditLog != "" && !filepath.IsAbs(s.AuditLog) {
		return Settings{}, fmt.Errorf("%s: audit_log %q is not an absolute path", s.Origin["audit_log"], s.AuditLog)
	}
	if s.ApproverTimeout != "" {
		if _, err := ParseTimeout(s.ApproverTimeout); err != nil {
			return Settings{}, fmt.Errorf("%s: approver_timeout: %w", s.Origin["approver_timeout"], err)
		}
	}
	if profiles.IsFile(s.Profile) && !filepath.IsAbs(s.Profile) {
		return Settings{}, fmt.Errorf("%s: profile %q is a file but not an absolute path", s.Origin["profile"], s.Profile)
	}
	return s, nil
}

// keyLine returns the 1-based line where the last part of key is assigned
// or opened as a table, or 1 when it cannot be found; the TOML library does
// not expose key positions.
func keyLine(src []byte, key toml.Key) int {
	q := regexp.QuoteMeta(key[len(key)-1])
	re := regexp.MustCompile(`^\s*(\[+\s*)?("` + q + `"|'` + q + `'|` + q + `)\s*[=.\]]`)
	for i, line := range strings.Split(string(src), "\n") {
		if re.MatchString(line) {
			return i + 1
		}
	}
	return 1
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
