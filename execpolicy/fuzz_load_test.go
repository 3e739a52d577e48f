package execpolicy

import (
	"errors"
	"testing"
)

// FuzzLoad checks that no rules file makes the loader panic or hang, that
// every failure is a positioned *LoadError, and that a policy that loads
// can be matched against.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		`prefix_rule(pattern=["git", ["status", "log"]], decision="allow", match=["git status"], not_match=["git push"])`,
		`prefix_rule([["npm", "pnpm"], "ci"], "prompt", justification="network", profile="net")`,
		"host_executable(name=\"git\", paths=[\"/usr/bin/git\", \"~/bin/git\"])\nprefix_rule([\"git\"], match=[\"/usr/bin/git x\"])",
		`network_rule(host="[::1]:443", protocol="https", decision="deny")`,
		"def f(*w):\n    prefix_rule(list(w))\nfor p in [\"a\", \"b\"]:\n    f(p, \"x\")",
		`prefix_rule(["a"], decision="nope")`,
		`prefix_rule(["a"], match=["'unterminated"])`,
		`prefix_rule([])`,
		`prefix_rule(["a"], bogus=1)`,
		"prefix_rule([\"git\"]\n",
		"x = [[[[[[[[",
		"def f():\n    for i in range(1000000000):\n        pass\nf()",
		"load(\"x\", \"y\")",
		"\x00\xff\xfe",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Loader{HomeDir: "/home/u", MaxSteps: 100_000, MaxEntries: 10_000}.Load("f.rules", []byte(src))
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.File != "f.rules" || le.Line < 1 || le.Col < 1 {
				t.Fatalf("error %v is not a positioned *LoadError", err)
			}
			if p != nil {
				t.Fatalf("policy returned with error %v", err)
			}
			return
		}
		for _, argv := range [][]string{{"git", "status"}, {"/usr/bin/git"}, {"a", "x"}, {""}} {
			ms := p.MatchArgv(argv, MatchOptions{ResolveHostExecutables: true})
			_ = CodexJSON(ms, true)
		}
		_ = p.Digest()
	})
}
