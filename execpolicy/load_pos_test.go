package execpolicy

import "testing"

// TestSyntaxErrorColumn: a parse error points at the offending token's
// first character, not one past its end (issue 11 item 17).
func TestSyntaxErrorColumn(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`prefix_rule(pattern=["touch"], decision="prompt" x)`, `t.rules:1:50: got identifier, want ','`},
		{`prefix_rule(pattern=["touch"], decision="prompt" "abc")`, `t.rules:1:50: got string literal, want ','`},
		{`prefix_rule(pattern=["touch"] decision="prompt")`, `t.rules:1:31: got identifier, want ','`},
		{"x = 1\nprefix_rule(pattern=[\"a\"]   justification)", `t.rules:2:29: got identifier, want ','`},
		{`prefix_rule(pattern=["a"], decision="allow"`, `t.rules:2:1: got end of file, want ')'`},
	} {
		_, err := Loader{}.Load("t.rules", []byte(tc.src+"\n"))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Load(%q) = %v, want %s", tc.src, err, tc.want)
		}
	}
}

func TestProfileRefs(t *testing.T) {
	p, err := Loader{}.Load("t.rules", []byte(`prefix_rule(["npm", "ci"], profile="net")
prefix_rule(["ls"])
prefix_rule(["pip"], profile="net")
prefix_rule(["make"], profile="build")
`))
	if err != nil {
		t.Fatal(err)
	}
	refs := p.ProfileRefs()
	if len(refs) != 2 || refs[0] != (ProfileRef{"net", "t.rules:1:1"}) || refs[1] != (ProfileRef{"build", "t.rules:4:1"}) {
		t.Errorf("ProfileRefs = %+v", refs)
	}
}
