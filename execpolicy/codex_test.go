package execpolicy

import (
	"encoding/json"
	"testing"
)

func TestCodexJSON(t *testing.T) {
	const rules = `
host_executable("git", ["/usr/bin/git"])
prefix_rule(["git", "status"], "allow")
prefix_rule(["git", ["push", "fetch"]], "prompt", justification="talks to the network")
prefix_rule(["rm"], "forbidden", justification="say \"no\" <&> \u2028 tab\t nl\n bell\x07 del\x7f")
`
	p, err := Load("codex.rules", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	resolve := MatchOptions{ResolveHostExecutables: true}
	for _, tc := range []struct {
		name   string
		argv   []string
		opts   MatchOptions
		pretty bool
		want   string
	}{
		{"no match", []string{"ls", "-l"}, MatchOptions{}, false,
			`{"matchedRules":[]}`},
		{"no match pretty", []string{"ls"}, MatchOptions{}, true,
			"{\n  \"matchedRules\": []\n}"},
		{"allow without justification", []string{"git", "status", "-s"}, MatchOptions{}, false,
			`{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow"}}],"decision":"allow"}`},
		{"justification present", []string{"git", "push", "origin"}, MatchOptions{}, false,
			`{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","push"],"decision":"prompt","justification":"talks to the network"}}],"decision":"prompt"}`},
		{"resolvedProgram before justification", []string{"/usr/bin/git", "fetch"}, resolve, false,
			`{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","fetch"],"decision":"prompt","resolvedProgram":"/usr/bin/git","justification":"talks to the network"}}],"decision":"prompt"}`},
		{"no resolution without the option", []string{"/usr/bin/git", "fetch"}, MatchOptions{}, false,
			`{"matchedRules":[]}`},
		{"serde escaping", []string{"rm", "x"}, MatchOptions{}, false,
			`{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["rm"],"decision":"forbidden","justification":"say \"no\" <&> ` + "\u2028" + ` tab\t nl\n bell\u0007 del` + "\x7f" + `"}}],"decision":"forbidden"}`},
		{"pretty", []string{"git", "status"}, MatchOptions{}, true, `{
  "matchedRules": [
    {
      "prefixRuleMatch": {
        "matchedPrefix": [
          "git",
          "status"
        ],
        "decision": "allow"
      }
    }
  ],
  "decision": "allow"
}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(CodexJSON(p.MatchArgv(tc.argv, tc.opts), tc.pretty))
			if got != tc.want {
				t.Errorf("CodexJSON(%q)\n got: %s\nwant: %s", tc.argv, got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("output is not valid JSON: %s", got)
			}
		})
	}
}

func TestCodexJSONSeveralMatchesTakeTheStrictest(t *testing.T) {
	ms := []RuleMatch{
		{MatchedPrefix: []string{"git"}, Decision: Allow},
		{MatchedPrefix: []string{"git", "push"}, Decision: Forbidden},
		{MatchedPrefix: []string{"git", "push"}, Decision: Prompt},
	}
	want := `{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow"}},{"prefixRuleMatch":{"matchedPrefix":["git","push"],"decision":"forbidden"}},{"prefixRuleMatch":{"matchedPrefix":["git","push"],"decision":"prompt"}}],"decision":"forbidden"}`
	if got := string(CodexJSON(ms, false)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCodexJSONEscapesEveryControlByte(t *testing.T) {
	short := map[byte]string{'\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	for c := byte(0); c < 0x20; c++ {
		got := string(CodexJSON([]RuleMatch{{MatchedPrefix: []string{string([]byte{c})}, Decision: Allow}}, false))
		want := short[c]
		if want == "" {
			want = `\u00` + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&0xf])
		}
		want = `{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["` + want + `"],"decision":"allow"}}],"decision":"allow"}`
		if got != want {
			t.Errorf("byte %#x: got %s, want %s", c, got, want)
		}
		var back struct {
			MatchedRules []struct {
				PrefixRuleMatch struct{ MatchedPrefix []string }
			}
		}
		if err := json.Unmarshal([]byte(got), &back); err != nil || back.MatchedRules[0].PrefixRuleMatch.MatchedPrefix[0] != string([]byte{c}) {
			t.Errorf("byte %#x does not round-trip: %v %+v", c, err, back)
		}
	}
}

func TestCodexRulesMarshalJSON(t *testing.T) {
	out, err := json.Marshal(struct {
		M CodexRules `json:"m"`
		N CodexRules `json:"n"`
	}{M: CodexRules{{MatchedPrefix: []string{"a>b"}, Decision: Prompt, Justification: "j"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"m":[{"prefixRuleMatch":{"matchedPrefix":["a\u003eb"],"decision":"prompt","justification":"j"}}],"n":[]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}
