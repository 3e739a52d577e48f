package config

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParseSettings checks that any config.toml either parses, with every
// key it set traced to a line of the file, or fails with an error naming
// the file; it must never panic.
func FuzzParseSettings(f *testing.F) {
	for _, seed := range []string{
		"approval_policy = \"never\"\napprover = \"exec:/bin/a\"\nprofile = \"read-only\"\naudit_log = \"/x\"\naudit_fsync = true\n",
		"[extra]\nkey = 1\n",
		"profile = \n",
		"'profile' = \"x\"\n\"approver\" = 'deny'\n",
		"audit_log = \"rel\"\n",
		"profile = \"\"\"\nmulti\nline\"\"\"\n",
		"profile = 1979-05-27T07:32:00Z\napproval_policy = 07:32:00\n",
		"allowed_profiles = [\n  'a', # c\n  \"b\",\n]\nmanaged = true\naudit_log = '/x'\n",
		"PROFILE = 'x'\n[profile.x]\napprover = {a = 1}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := ParseSettings("c.toml", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "c.toml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		known := map[string]bool{KeyAuditFsync: true}
		for _, k := range append(append([]string(nil), StringKeys...), ManagedKeyNames...) {
			known[k] = true
		}
		lines := strings.Count(string(src), "\n") + 1
		for k, o := range s.Origin {
			var line int
			if !known[k] || !strings.HasPrefix(o, "c.toml:") {
				t.Fatalf("origin %q of key %q", o, k)
			}
			if _, err := fmt.Sscan(strings.TrimPrefix(o, "c.toml:"), &line); err != nil || line < 1 || line > lines {
				t.Fatalf("origin %q of key %q is not a line of the file", o, k)
			}
		}
	})
}
