package auditlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// suggestOn runs --suggest over the records lines with placement pl.
func suggestOn(t *testing.T, pl Placement, lines ...string) string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	q := Query{Output: Suggest, Placement: pl}
	if _, err := q.Run([]string{log}, nil, &out, &errs); err != nil || errs.Len() > 0 {
		t.Fatalf("Run: %v %s", err, errs.String())
	}
	return out.String()
}

const (
	promptRec = `{"time":"2026-01-01T10:00:00Z","kind":"exec","argv":ARGV,"cwd":"/w","rules_matched":[],"decision":"prompt","outcome":"denied","profile":"workspace-write","exit":null}`
	deniedRec = `{"time":"2026-01-01T10:00:00Z","kind":"exec","argv":["touch","/opt/x"],"cwd":"/w","rules_matched":[],"decision":"prompt","profile":"workspace-write","exit":1,"denials":[{"kind":"fs-write","path":"/opt/x"},{"kind":"net","host":"registry.example.com","port":443}],"after_run":true}`
)

func prompted(argv string) string { return strings.Replace(promptRec, "ARGV", argv, 1) }

// Every suggestion says where it must go to take effect: under a managed
// ceiling that is its layer, and what the ceiling refuses says which
// managed key refuses it and where that key is set.
func TestSuggestSaysWhereItTakesEffect(t *testing.T) {
	managed := Placement{
		Rules:    "/etc/gatedexec/rules/ (a user rule would not count: allow_user_rules (/etc/gatedexec/config.toml:3) is false)",
		Network:  "/etc/gatedexec/rules/ (allowed_profiles (/etc/gatedexec/config.toml:2) drops the allow network_rules of lower layers)",
		Profiles: "/etc/gatedexec/profiles",
		ProfileRefused: func(name string) string {
			return "profile " + name + " is not among the managed allowed_profiles (/etc/gatedexec/config.toml:2): workspace-write"
		},
	}
	tests := []struct {
		name        string
		pl          Placement
		want, avoid []string
	}{
		{name: "no managed layer", pl: Placement{Rules: "/home/u/.config/gatedexec/rules/default.rules", Network: "/home/u/.config/gatedexec/rules/default.rules", Profiles: "/home/u/.config/gatedexec/profiles"},
			want: []string{
				"allowed the recorded prompts; to take effect, in /home/u/.config/gatedexec/rules/default.rules:",
				"refused (profiles in mode \"proxy\"); to take effect, in /home/u/.config/gatedexec/rules/default.rules:",
				"# /home/u/.config/gatedexec/profiles/workspace-write-audit.toml: 1 denials under workspace-write"},
			avoid: []string{"refused by the managed"}},
		{name: "managed ceiling", pl: managed,
			want: []string{
				"to take effect, in /etc/gatedexec/rules/ (a user rule would not count: allow_user_rules (/etc/gatedexec/config.toml:3) is false):",
				"to take effect, in /etc/gatedexec/rules/ (allowed_profiles (/etc/gatedexec/config.toml:2) drops",
				"# /etc/gatedexec/profiles/workspace-write-audit.toml: 1 denials under workspace-write",
				"# refused by the managed layer: profile workspace-write-audit is not among the managed allowed_profiles (/etc/gatedexec/config.toml:2): workspace-write"},
			avoid: []string{"# profiles/workspace-write-audit.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := suggestOn(t, tt.pl, prompted(`["npm","test"]`), deniedRec)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(out, a) {
					t.Errorf("output has %q:\n%s", a, out)
				}
			}
		})
	}
}
