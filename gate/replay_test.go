package gate

import (
	"errors"
	"testing"

	"github.com/gatedexec/gatedexec/auditlog"
)

// The changes of the fixture, written by hand: git push prompt -> allow
// (looser), git status allow -> allow (its after-run record skipped),
// curl allow -> forbidden (stricter), the --shell script prompt -> allow
// (looser, judged as a script), the escalation record skipped, make
// prompt -> prompt.
func TestReplayFixture(t *testing.T) {
	want := map[int]string{1: "looser", 2: "same", 4: "stricter", 5: "looser", 8: "same"}
	got := map[int]string{}
	var bad []int
	sum, err := Replay([]string{"testdata/replay/new.rules"}, []string{"testdata/replay/old.jsonl"}, nil,
		func(r Replayed) { got[r.Line] = r.Change }, func(p auditlog.Problem) { bad = append(bad, p.Line) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("replayed lines %v, want %v", got, want)
	}
	for line, c := range want {
		if got[line] != c {
			t.Errorf("line %d: %q, want %q", line, got[line], c)
		}
	}
	if (sum != ReplaySummary{Decisions: 5, Same: 2, Stricter: 1, Looser: 2}) {
		t.Errorf("summary %+v", sum)
	}
	if len(bad) != 1 || bad[0] != 7 {
		t.Errorf("problems at %v, want line 7", bad)
	}
}

func TestReplayBadRulesIsConfig(t *testing.T) {
	_, err := Replay([]string{"testdata/replay/old.jsonl"}, []string{"testdata/replay/old.jsonl"}, nil, func(Replayed) {}, func(auditlog.Problem) {})
	if err == nil || !isConfig(err) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
}

func isConfig(err error) bool { return errors.Is(err, ErrConfig) }
