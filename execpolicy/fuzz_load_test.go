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
		"CMDS = [\"git\"]\nprefix_rule(pattern=CMDS + [\"x\"], decision=\"prompt\")",
		"x = \"a\" * 3\nprefix_rule(pattern=[x], justification=\"j\" + \"k\")",
	} {
		f.Add(seed)
	}
	argvs := [][]string{{"git", "status"}, {"/usr/bin/git"}, {"a", "x"}, {""}}
	f.Fuzz(func(t *testing.T, src string) {
		l := Loader{HomeDir: "/home/u", MaxSteps: 100_000, MaxEntries: 10_000}
		p, err := l.Load("f.rules", []byte(src))
		checkLoadResult(t, p, err)
		// The literal subset is a subset: what it accepts, the full
		// language accepts with the same rules.
		l.Restricted = true
		rp, rerr := l.Load("f.rules", []byte(src))
		checkLoadResult(t, rp, rerr)
		if rerr == nil && err != nil {
			t.Fatalf("restricted load accepted what the full language refused: %v", err)
		}
		for _, argv := range argvs {
			opts := MatchOptions{ResolveHostExecutables: true}
			if p != nil {
				got := string(CodexJSON(p.MatchArgv(argv, opts), true))
				if rp != nil && string(CodexJSON(rp.MatchArgv(argv, opts), true)) != got {
					t.Fatalf("restricted and full loads match %q differently", argv)
				}
			}
		}
		if p != nil {
			_ = p.Digest()
		}
	})
}

// checkLoadResult asserts that a failed load is a positioned *LoadError
// with no policy.
func checkLoadResult(t *testing.T, p *Policy, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var le *LoadError
	if !errors.As(err, &le) || le.File != "f.rules" || le.Line < 1 || le.Col < 1 {
		t.Fatalf("error %v is not a positioned *LoadError", err)
	}
	if p != nil {
		t.Fatalf("policy returned with error %v", err)
	}
}
