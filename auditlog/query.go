package auditlog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Output is what a Query prints.
type Output int

// The outputs of `gatedexec audit`.
const (
	// Table prints one row per record selected.
	Table Output = iota
	// JSONLines prints each record selected as its log line, unchanged.
	JSONLines
	// SummaryText and SummaryJSON print the counts of the records selected.
	SummaryText
	SummaryJSON
	// Suggest prints the rule and profile changes of Suggester.
	Suggest
)

// Query reads logs, selects records and prints them.
type Query struct {
	Filter Filter
	Output Output
	// Top bounds the top lists of a summary (default 10).
	Top int
	// Profile is Suggester.Profile.
	Profile func(name string) (write, read []string, ok bool)
	// Placement is Suggester.Place.
	Placement Placement
}

// Run reads files in order ("-" is stdin) and prints to w; every line
// skipped is reported on problems as "file:line: why". It returns the
// number of lines skipped.
func (q *Query) Run(files []string, stdin io.Reader, w, problems io.Writer) (int, error) {
	out := bufio.NewWriterSize(w, 64<<10)
	nbad := 0
	bad := func(p Problem) {
		nbad++
		fmt.Fprintf(problems, "gatedexec: audit: %v (skipped)\n", p)
	}
	sum, sug := NewSummary(), NewSuggester()
	sug.Profile, sug.Place = q.Profile, q.Placement
	if q.Output == Table {
		fmt.Fprintf(out, "%-24s  %-9s  %-20s  %-16s  %4s  %s\n", "TIME", "DECISION", "OUTCOME", "PROFILE", "EXIT", "COMMAND")
	}
	each := func(e *Entry) error {
		r := &e.Record
		if !q.Filter.Match(r) {
			return nil
		}
		switch q.Output {
		case Table:
			writeRow(out, r)
		case JSONLines:
			out.Write(e.Raw)
			out.WriteByte('\n')
		case SummaryText, SummaryJSON:
			sum.Add(r)
		case Suggest:
			sug.Add(e)
		}
		return nil
	}
	if err := ScanFiles(files, stdin, each, bad); err != nil {
		// Not flushed: a log that cannot be opened prints nothing at all
		// (not even the table's header), one that fails mid-way no more
		// than what already went out.
		return nbad, err
	}
	sum.Problems = nbad
	top := q.Top
	if top <= 0 {
		top = 10
	}
	var err error
	switch q.Output {
	case SummaryText:
		err = sum.WriteText(out, top)
	case SummaryJSON:
		err = json.NewEncoder(out).Encode(sum.JSON(top))
	case Suggest:
		err = sug.WriteText(out)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return nbad, err
}

// writeRow writes r as a table row; control characters in the command
// are escaped, so that a recorded command cannot drive the terminal.
func writeRow(w io.Writer, r *Record) {
	exit := "-"
	if r.Exit != nil {
		exit = strconv.Itoa(*r.Exit)
	}
	outcome := r.Outcome
	if r.AfterRun {
		outcome = "ran"
		if len(r.Denials) > 0 {
			outcome = fmt.Sprintf("ran, %d denials", len(r.Denials))
		}
	}
	cmd := r.Command()
	if len(cmd) > 200 {
		cmd = cmd[:197] + "..."
	}
	fmt.Fprintf(w, "%-24s  %-9s  %-20s  %-16s  %4s  %s\n", r.Time.UTC().Format(time.RFC3339), dash(r.Decision), dash(outcome), dash(r.Profile), exit, printable(cmd))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printable quotes what a terminal would interpret.
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}
