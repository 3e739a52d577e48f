package auditlog

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Summary counts the records a scan selected: decisions by their
// decision and outcome, the most denied paths and hosts and the most
// prompted commands. Its memory is bounded whatever the log's length.
type Summary struct {
	Records   int            `json:"records"`
	Decisions map[string]int `json:"decisions"`
	Outcomes  map[string]int `json:"outcomes"`
	Profiles  map[string]int `json:"profiles"`
	First     time.Time      `json:"first,omitzero"`
	Last      time.Time      `json:"last,omitzero"`
	// Problems counts the lines skipped.
	Problems int `json:"problems"`

	denied, prompted *topK
	// key is scratch for the key of a denial.
	key []byte
}

// denialKey appends "kind target" (trimmed, as a key of the top list) to
// b: the key is looked up without allocating, and copied only when new.
func denialKey(b []byte, d Denial) []byte {
	b = append(b, d.Kind...)
	switch {
	case d.Path != "":
		b = append(append(b, ' '), d.Path...)
	case d.Host != "" && d.Port != 0:
		b = strconv.AppendInt(append(append(append(b, ' '), d.Host...), ':'), int64(d.Port), 10)
	case d.Host != "":
		b = append(append(b, ' '), d.Host...)
	}
	return bytes.TrimSpace(b)
}

// trackedKeys bounds the distinct paths, hosts and commands a Summary
// tracks (see topK); profiles and outcomes are few by nature, but a
// log's profile names are data too, so they are bounded as well.
const trackedKeys = 4096

// NewSummary returns an empty summary.
func NewSummary() *Summary {
	return &Summary{Decisions: map[string]int{}, Outcomes: map[string]int{}, Profiles: map[string]int{},
		denied: newTopK(trackedKeys), prompted: newTopK(trackedKeys)}
}

// Add counts r. Decisions are counted once per decision (IsDecision),
// denials from the record that says how the run went.
func (s *Summary) Add(r *Record) {
	s.Records++
	if s.First.IsZero() || r.Time.Before(s.First) {
		s.First = r.Time
	}
	if r.Time.After(s.Last) {
		s.Last = r.Time
	}
	for _, d := range r.Denials {
		if r.AfterRun {
			k := denialKey(s.key[:0], d)
			s.denied.addBytes(k)
			s.key = k[:0]
		}
	}
	if !r.IsDecision() {
		return
	}
	bump(s.Decisions, r.Decision)
	bump(s.Outcomes, r.Outcome)
	bump(s.Profiles, r.Profile)
	if r.Decision == "prompt" {
		s.prompted.add(commandKey(r))
	}
}

// bump counts key in m, folding keys past trackedKeys into "(other)".
func bump(m map[string]int, key string) {
	if key == "" {
		key = "-"
	}
	if _, ok := m[key]; !ok && len(m) >= trackedKeys {
		key = "(other)"
	}
	m[key]++
}

// commandKey groups prompted commands by their first words: a script
// by itself, shortened.
func commandKey(r *Record) string {
	words := r.Argv
	if len(words) > 3 {
		words = words[:3]
	}
	key := strings.Join(words, " ")
	if len(key) > 120 {
		key = key[:117] + "..."
	}
	return key
}

// TopDenied and TopPrompted return the n most denied targets ("fs-write
// /path") and most prompted commands.
func (s *Summary) TopDenied(n int) []Count   { return s.denied.top(n) }
func (s *Summary) TopPrompted(n int) []Count { return s.prompted.top(n) }

// WriteText writes the summary as a readable report.
func (s *Summary) WriteText(w io.Writer, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d records", s.Records)
	if !s.First.IsZero() {
		fmt.Fprintf(&b, ", %s to %s", s.First.UTC().Format(time.RFC3339), s.Last.UTC().Format(time.RFC3339))
	}
	if s.Problems > 0 {
		fmt.Fprintf(&b, " (%d lines skipped)", s.Problems)
	}
	b.WriteString("\n")
	section := func(title string, m map[string]int) {
		fmt.Fprintf(&b, "\n%s:\n", title)
		keys := slices.Sorted(maps.Keys(m))
		slices.SortStableFunc(keys, func(a, c string) int { return m[c] - m[a] })
		for _, k := range keys {
			fmt.Fprintf(&b, "  %8d  %s\n", m[k], k)
		}
	}
	section("decisions", s.Decisions)
	section("outcomes", s.Outcomes)
	section("profiles", s.Profiles)
	counts := func(title string, cs []Count) {
		fmt.Fprintf(&b, "\n%s:\n", title)
		if len(cs) == 0 {
			b.WriteString("  (none)\n")
		}
		for _, c := range cs {
			fmt.Fprintf(&b, "  %8d  %s", c.N, c.Key)
			if c.Over > 0 {
				fmt.Fprintf(&b, "  (up to %d fewer)", c.Over)
			}
			b.WriteString("\n")
		}
	}
	counts("top denied paths and hosts", s.TopDenied(top))
	counts("top prompted commands", s.TopPrompted(top))
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON is the summary with its top lists, for --json.
func (s *Summary) JSON(top int) any {
	return struct {
		*Summary
		Denied   []Count `json:"top_denied"`
		Prompted []Count `json:"top_prompted"`
	}{s, s.TopDenied(top), s.TopPrompted(top)}
}
