package auditlog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The fixture's bad lines are reported by line number and skipped; the
// others are read, and the file is left as it was.
func TestScanReportsTornAndInvalidLines(t *testing.T) {
	before, err := os.ReadFile("testdata/torn.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	var problems []string
	err = ScanFile("testdata/torn.jsonl", nil, func(e *Entry) error {
		lines = append(lines, e.Line)
		return nil
	}, func(p Problem) { problems = append(problems, p.Error()) })
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(lines) != "[1 3 5 6]" {
		t.Errorf("records at lines %v, want [1 3 5 6]", lines)
	}
	want := []string{"testdata/torn.jsonl:2: not a record", "testdata/torn.jsonl:7: not a record", "testdata/torn.jsonl:8: torn record"}
	if len(problems) != len(want) {
		t.Fatalf("problems = %q", problems)
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d = %q, want %q", i, problems[i], w)
		}
	}
	after, _ := os.ReadFile("testdata/torn.jsonl")
	if !bytes.Equal(before, after) {
		t.Error("the log changed")
	}
}

func TestQueryOutputs(t *testing.T) {
	tests := []struct {
		name  string
		q     Query
		want  []string // each in the output
		avoid []string
	}{
		{name: "table filtered by session", q: Query{Filter: Filter{Session: "s1"}},
			want: []string{"TIME", "git push", "rm -rf /"}, avoid: []string{"npm test"}},
		{name: "decision", q: Query{Filter: Filter{Decisions: []string{"forbidden"}}, Output: JSONLines},
			want: []string{`"argv":["rm","-rf","/"]`}, avoid: []string{"git"}},
		{name: "denials of a kind", q: Query{Filter: Filter{Denials: "fs-write"}},
			want: []string{"ran, 2 denials"}, avoid: []string{"git push"}},
		{name: "since", q: Query{Filter: Filter{Since: time.Date(2026, 1, 1, 11, 30, 0, 0, time.UTC)}},
			want: []string{"rm -rf"}, avoid: []string{"npm", "git"}},
		{name: "command glob", q: Query{Filter: Filter{Command: "npm *"}},
			want: []string{"npm test"}, avoid: []string{"git", "rm -rf"}},
		{name: "profile", q: Query{Filter: Filter{Profiles: []string{"read-only"}}},
			want: []string{"rm -rf"}, avoid: []string{"npm"}},
		{name: "summary", q: Query{Output: SummaryText},
			want: []string{"4 records", "(3 lines skipped)", "2  prompt", "1  forbidden", "1  fs-write /home/u/.npm", "1  net-connect", "1  git push"}},
		{name: "suggest", q: Query{Output: Suggest, Profile: func(string) ([]string, []string, bool) { return []string{"/w", "/tmp"}, nil, true }},
			want: []string{`prefix_rule(pattern=["npm", "test"], decision="allow")  # 1 record, e.g. testdata/torn.jsonl:3`,
				"# prompt rule git push (m.rules:1:1): 1 record",
				`extends = "workspace-write"`, `write = ["/w", "/tmp", "/home/u/.npm"]`, `mode = "on"`},
			avoid: []string{`"rm"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			n, err := tt.q.Run([]string{"testdata/torn.jsonl"}, nil, &out, &errs)
			if err != nil || n != 3 {
				t.Fatalf("Run: %d problems, %v", n, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(out.String(), a) {
					t.Errorf("output has %q:\n%s", a, out.String())
				}
			}
		})
	}
}

func TestGlob(t *testing.T) {
	for _, tt := range []struct {
		p, s string
		ok   bool
	}{{"*", "", true}, {"git *", "git push origin", true}, {"git ?ush", "git push", true}, {"*/bin/*", "/usr/bin/git x", true},
		{"git", "git push", false}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false}, {"**", "x", true}} {
		if got := Glob(tt.p, tt.s); got != tt.ok {
			t.Errorf("Glob(%q, %q) = %v", tt.p, tt.s, got)
		}
	}
}

// synthLog streams n records, a tenth of them with denials and every
// command distinct, so that nothing can be kept per record.
type synthLog struct {
	n, i int
	buf  []byte
}

func (s *synthLog) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) && s.i < s.n {
		s.buf = fmt.Appendf(s.buf, `{"time":"2026-01-01T00:00:00Z","session":"s%d","kind":"exec","argv":["tool%d","sub","--n=%d"],"cwd":"/w","rules_matched":[],"decision":"prompt","outcome":"approved","profile":"workspace-write","exit":0,"denials":[{"kind":"fs-write","path":"/p/%d"}],"after_run":%t}`+"\n",
			s.i%7, s.i, s.i, s.i, s.i%10 == 0)
		s.i++
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	return n, nil
}

// Reading 100 000 records keeps memory flat: the heap after the scan is
// within a bound that does not depend on the log's length (the top-k
// tables' bound), not proportional to it.
func TestSummaryMemoryIsFlat(t *testing.T) {
	heapAfter := func(n int) uint64 {
		sum, sug := NewSummary(), NewSuggester()
		if err := Scan(&synthLog{n: n}, "synth", func(e *Entry) error {
			sum.Add(&e.Record)
			sug.Add(e)
			return nil
		}, func(p Problem) { t.Fatal(p) }); err != nil {
			t.Fatal(err)
		}
		if sum.Records != n {
			t.Fatalf("%d records read, want %d", sum.Records, n)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(sum)
		runtime.KeepAlive(sug)
		return m.HeapAlloc
	}
	small, large := heapAfter(10_000), heapAfter(100_000)
	// 90 000 more distinct commands and paths would be well over 10 MiB
	// if they were kept.
	if large > small+8<<20 {
		t.Errorf("heap after 100 000 records %d bytes, after 10 000 %d: it grows with the log", large, small)
	}
}

// BenchmarkSummary is `audit --summary` over 10 000 records of synthLog,
// made once, so that what is timed is reading them, not making them.
func BenchmarkSummary(b *testing.B) {
	log, err := io.ReadAll(&synthLog{n: 10_000})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		sum := NewSummary()
		if err := Scan(bytes.NewReader(log), "synth", func(e *Entry) error { sum.Add(&e.Record); return nil }, func(Problem) {}); err != nil {
			b.Fatal(err)
		}
		if sum.Records != 10_000 {
			b.Fatalf("%d records", sum.Records)
		}
	}
}

func TestSuggestHosts(t *testing.T) {
	log := filepath.Join(t.TempDir(), "net.jsonl")
	rec := `{"time":"2026-01-01T10:00:00Z","kind":"exec","argv":["npm","ci"],"cwd":"/w","rules_matched":[],"decision":"allow","profile":"workspace-net","exit":1,"denials":[%s],"after_run":true}` + "\n"
	lines := fmt.Sprintf(rec, `{"kind":"net","host":"registry.example.com","port":443},{"kind":"net","host":"registry.example.com","port":0}`) +
		fmt.Sprintf(rec, `{"kind":"net","host":"fe80::1","port":443}`)
	if err := os.WriteFile(log, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	q := Query{Output: Suggest}
	if _, err := q.Run([]string{log}, nil, &out, &errs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`network_rule(host="registry.example.com", protocol="https", decision="allow")  # 2 denials`,
		`network_rule(host="fe80::1", protocol="https", decision="allow")  # 1 denial`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("suggestions lack %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "workspace-net-audit.toml") || strings.Contains(out.String(), `mode = "on"`) {
		t.Errorf("a refused host suggested a profile or the whole network:\n%s", out.String())
	}
}
