package execpolicy

import (
	"fmt"
	"sync"
	"testing"
)

// One Policy serves many evaluations at once (a Gate's requests): the
// race detector checks its pools, its tables and the decoding of cached
// rules, matched encoded or decoded meanwhile, and every goroutine gets
// the answer a lone evaluation gets.
func TestEvaluateConcurrent(t *testing.T) {
	p, err := Loader{}.Load("c.rules", []byte(`
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["rm"], decision="forbidden")
host_executable(name="git", paths=["/usr/bin/git"])
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		argv []string
		opts EvalOptions
	}{
		{[]string{"git", "status"}, EvalOptions{}},
		{[]string{"/usr/bin/git", "push"}, EvalOptions{ResolveHostExecutables: true}},
		{[]string{"bash", "-lc", "git status && rm -rf x"}, EvalOptions{}},
		{[]string{"for f in *; do git status \"$f\"; done | sort"}, EvalOptions{Shell: true}},
		{[]string{"cat <<EOF\n$(rm x)\nEOF"}, EvalOptions{Shell: true}},
	}
	want := make([]string, len(cases))
	for i, c := range cases {
		want[i] = fmt.Sprint(p.Evaluate(c.argv, c.opts).Decision)
	}
	// The same rules as a compiled-rules cache entry gives them, still
	// encoded: the goroutines below are the first to look them up, and
	// decode them as they race.
	key := [cacheKeySize]byte{1}
	if p, err = decodePolicy(key, encodePolicy(key, p, namesOf(p)), namesOf(p)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if g == 0 && i == 25 {
					// Decoding every block (a profile lint, an
					// untrusted layer's check) while the others match
					// against them encoded.
					for _, b := range p.byProgram {
						b.all()
					}
				}
				c := cases[(g+i)%len(cases)]
				if got := fmt.Sprint(p.Evaluate(c.argv, c.opts).Decision); got != want[(g+i)%len(cases)] {
					t.Errorf("%q: %s, want %s", c.argv, got, want[(g+i)%len(cases)])
					return
				}
			}
		}()
	}
	wg.Wait()
}
