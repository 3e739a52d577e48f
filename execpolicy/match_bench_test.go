package execpolicy

import (
	"fmt"
	"strings"
	"testing"
)

// benchPolicySource builds a realistic rules file of about n rules: many
// programs with a few rules each (a bare allow, a forbidden subcommand and
// a prompt with alternatives), as a large organisation's rules would be.
func benchPolicySource(n int) string {
	var b strings.Builder
	for i := 0; b.Len() == 0 || i*3 < n; i++ {
		prog := fmt.Sprintf("tool%d", i)
		fmt.Fprintf(&b, "prefix_rule([%q, \"status\"], \"allow\")\n", prog)
		fmt.Fprintf(&b, "prefix_rule([%q, \"push\", \"--force\"], \"forbidden\", justification=\"rewrites history\")\n", prog)
		fmt.Fprintf(&b, "prefix_rule([%q, [\"push\", \"fetch\", \"pull\"]], \"prompt\")\n", prog)
	}
	fmt.Fprintf(&b, "prefix_rule([\"git\", \"status\"], \"allow\")\nprefix_rule([\"git\", \"push\"], \"prompt\")\n")
	return b.String()
}

func BenchmarkMatchArgv(b *testing.B) {
	for _, n := range []int{10, 1_000, 10_000} {
		p, err := Load("bench.rules", []byte(benchPolicySource(n)))
		if err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			argv []string
			opts MatchOptions
		}{
			{"plain", []string{"git", "status", "--short"}, MatchOptions{}},
			{"unmatched", []string{"ls", "-la", "/tmp"}, MatchOptions{}},
			{"host-fallback", []string{"/usr/bin/git", "push", "origin"}, MatchOptions{ResolveHostExecutables: true}},
		} {
			b.Run(fmt.Sprintf("rules=%d/%s", p.Len(), tc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if ms := p.MatchArgv(tc.argv, tc.opts); len(ms) > 3 {
						b.Fatal(ms)
					}
				}
			})
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	src := []byte(benchPolicySource(10_000))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Load("bench.rules", src); err != nil {
			b.Fatal(err)
		}
	}
}
