package execpolicy

import (
	"reflect"
	"sync"
	"testing"
)

// TestScratchReuse evaluates every corpus command on one policy, in turn
// and from several goroutines at once, and checks each result against
// the same command on a policy of its own: a scratch handed from one
// evaluation to the next must carry nothing over.
func TestScratchReuse(t *testing.T) {
	rows := readCorpus(t)
	want := make([]Evaluation, len(rows))
	for i, row := range rows {
		// A policy without a pool: every evaluation starts from nothing.
		fresh := corpusPolicy()
		fresh.scratch = nil
		want[i] = fresh.Evaluate([]string{"bash", "-c", row.command}, EvalOptions{})
	}
	shared := corpusPolicy()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range rows {
				// Each goroutine walks the rows in its own order, so that
				// a scratch goes from a long script to a short one and back.
				i := (k*(2*g+1) + g) % len(rows)
				got := shared.Evaluate([]string{"bash", "-c", rows[i].command}, EvalOptions{})
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("line %d %q: with a reused scratch %+v, alone %+v", rows[i].line, rows[i].command, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}
