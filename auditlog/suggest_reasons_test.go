package auditlog

import (
	"strings"
	"testing"
)

// Only a prompt no rule matched is lowered by an allow rule: a prompt for
// a redirect, a dangerous command or a prompt rule stays one under any
// allow rule, so suggesting one would mislead. Each is listed instead,
// with what it needs.
func TestSuggestAllowOnlyForUnmatchedPrompts(t *testing.T) {
	tests := []struct {
		name        string
		rec         string
		want, avoid []string
	}{
		{name: "unmatched", rec: prompted(`["npm","test"]`),
			want: []string{`prefix_rule(pattern=["npm", "test"], decision="allow")`}},
		{name: "redirect in a script", rec: prompted(`["sh","-c","echo x > /opt/denied-x"]`),
			want:  []string{"unanalysable: write redirect to /opt/denied-x: 1 record"},
			avoid: []string{`pattern=["echo"]`}},
		{name: "dangerous", rec: prompted(`["git","push","--force"]`),
			want:  []string{"dangerous: git force push: git push --force: 1 record"},
			avoid: []string{`pattern=["git"`}},
		{name: "prompt rule on the command", rec: strings.Replace(prompted(`["git","push"]`), `"rules_matched":[]`, `"rules_matched":[{"matched_prefix":["git","push"],"decision":"prompt","source":"m.rules:1:1"}]`, 1),
			want:  []string{"# prompt rule git push (m.rules:1:1): 1 record"},
			avoid: []string{`pattern=["git"`}},
		{name: "prompt rule recorded as a reason", rec: strings.Replace(prompted(`["sh","-c","git push"]`), `"decision":"prompt"`, `"decision":"prompt","reasons":[{"kind":"rule","detail":"rule git push (m.rules:1:1)"}]`, 1),
			want:  []string{"rule: rule git push (m.rules:1:1): 1 record"},
			avoid: []string{`pattern=["git"`}},
		{name: "unmatched recorded as a reason", rec: strings.Replace(prompted(`["sh","-c","npm test"]`), `"decision":"prompt"`, `"decision":"prompt","reasons":[{"kind":"unmatched","detail":"npm test"}]`, 1),
			want: []string{`prefix_rule(pattern=["npm", "test"], decision="allow")`}},
		{name: "a control character in a reason is escaped", rec: prompted(`["sh","-c","echo x > '/opt/\u001b[2J'"]`),
			want: []string{`/opt/\x1b[2J`}, avoid: []string{"\x1b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := suggestOn(t, Placement{}, tt.rec)
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
