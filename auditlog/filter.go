package auditlog

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Filter selects records; its zero value selects every one.
type Filter struct {
	// Decisions keeps records whose decision (allow, prompt, forbidden)
	// or outcome (approved, denied, ...) is one of these.
	Decisions []string
	// Profiles keeps records run (or refused) under one of these.
	Profiles []string
	// Denials, when set, keeps records with a denial of this kind
	// ("fs-write", "net-connect", ...), or any denial for "any".
	Denials string
	// Since keeps records at or after it.
	Since time.Time
	// Session keeps the records of this session id.
	Session string
	// Command keeps records whose command line matches this glob: "*"
	// is any run of characters (slashes and spaces too), "?" one
	// character, anything else itself.
	Command string
}

// Match reports whether f selects r.
func (f *Filter) Match(r *Record) bool {
	if len(f.Decisions) > 0 && !slices.Contains(f.Decisions, r.Decision) && !slices.Contains(f.Decisions, r.Outcome) {
		return false
	}
	if len(f.Profiles) > 0 && !slices.Contains(f.Profiles, r.Profile) {
		return false
	}
	if f.Denials != "" && !slices.ContainsFunc(r.Denials, func(d Denial) bool { return f.Denials == "any" || d.Kind == f.Denials }) {
		return false
	}
	if !f.Since.IsZero() && r.Time.Before(f.Since) {
		return false
	}
	if f.Session != "" && r.Session != f.Session {
		return false
	}
	return f.Command == "" || Glob(f.Command, r.Command())
}

// Glob reports whether s matches pattern, in which "*" is any run of
// characters and "?" any one character. It runs in time linear in
// len(pattern)·len(s), without backtracking blow-ups.
func Glob(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]) && pattern[p] != '*':
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// ParseSince reads a --since value: an RFC 3339 time, a date
// (2006-01-02, midnight UTC), or a duration back from now ("24h").
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want an RFC 3339 time, a date (2006-01-02) or a positive duration (24h)", s)
}

// knownDecisions are the values Decisions may hold.
var knownDecisions = []string{"allow", "prompt", "forbidden", "approved", "approved_for_session", "approved_always", "denied", "deferred", "abort"}

// CheckDecision fails for a --decision value no record can have.
func CheckDecision(s string) error {
	if !slices.Contains(knownDecisions, s) {
		return fmt.Errorf("--decision %q: want one of %s", s, strings.Join(knownDecisions, ", "))
	}
	return nil
}
