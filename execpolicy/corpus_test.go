package execpolicy

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/internal/corpus"
)

// corpusPath is the shared adversarial corpus, relative to this package.
const corpusPath = "../../shared/corpus/policy_bypass.tsv"

// corpusRow is one decoded line of the corpus.
type corpusRow struct {
	line     int
	command  string
	expected Decision
	also     Decision // 0 when the row is exact
	reason   string
}

// corpusPolicy is the policy in the corpus header.
func corpusPolicy() *Policy {
	p := NewPolicy()
	for _, r := range []PrefixRule{
		{Program: "git", Rest: [][]string{{"status"}}, Decision: Allow, Source: "corpus:1"},
		{Program: "ls", Decision: Allow, Source: "corpus:2"},
		{Program: "cat", Decision: Allow, Source: "corpus:3"},
		{Program: "echo", Decision: Allow, Source: "corpus:4"},
		{Program: "rm", Decision: Forbidden, Source: "corpus:5"},
		{Program: "curl", Decision: Forbidden, Source: "corpus:6"},
		{Program: "git", Rest: [][]string{{"push"}}, Decision: Prompt, Source: "corpus:7"},
	} {
		p.AddPrefixRule(r)
	}
	return p
}

func readCorpus(t testing.TB) []corpusRow {
	t.Helper()
	f, err := os.Open(corpusPath)
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("%s:%d: want 3 columns, got %d", corpusPath, n, len(cols))
		}
		cmd, err := corpus.DecodeCommand(cols[0])
		if err != nil {
			t.Fatalf("%s:%d: %v", corpusPath, n, err)
		}
		exp, err := ParseDecision(cols[1])
		if err != nil {
			t.Fatalf("%s:%d: %v", corpusPath, n, err)
		}
		row := corpusRow{line: n, command: cmd, expected: exp, reason: cols[2]}
		if _, tag, ok := strings.Cut(cols[2], "[also:"); ok {
			alt, _, _ := strings.Cut(tag, "]")
			if row.also, err = ParseDecision(alt); err != nil {
				t.Fatalf("%s:%d: tag: %v", corpusPath, n, err)
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("corpus: %v", err)
	}
	if len(rows) < 100 {
		t.Fatalf("corpus: only %d rows", len(rows))
	}
	return rows
}

func TestCorpus(t *testing.T) {
	p := corpusPolicy()
	for _, row := range readCorpus(t) {
		t.Run(strconv.Itoa(row.line), func(t *testing.T) {
			for _, run := range []struct {
				name string
				argv []string
				opts EvalOptions
			}{
				{"bash -c", []string{"bash", "-c", row.command}, EvalOptions{}},
				{"--shell", []string{row.command}, EvalOptions{Shell: true}},
			} {
				ev := p.Evaluate(run.argv, run.opts)
				if ev.Decision != row.expected && (row.also == 0 || ev.Decision != row.also) {
					t.Errorf("%s %q: got %v, want %v (%s); reasons %v", run.name, row.command, ev.Decision, row.expected, row.reason, ev.Reasons)
				}
				if ev.Decision == Allow && len(ev.Reasons) != 0 {
					t.Errorf("%s %q: allow with reasons %v", run.name, row.command, ev.Reasons)
				}
				if ev.Decision != Allow && len(ev.Reasons) == 0 {
					t.Errorf("%s %q: %v without a reason", run.name, row.command, ev.Decision)
				}
			}
		})
	}
}
