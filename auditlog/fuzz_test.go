package auditlog

import (
	"bytes"
	"testing"
)

// Scan never panics, and every line is either a record or a problem.
func FuzzScan(f *testing.F) {
	f.Add([]byte("{\"argv\":[\"ls\"]}\n{\"argv\""))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		err := Scan(bytes.NewReader(data), "f", func(e *Entry) error { n++; return nil }, func(Problem) { n++ })
		if err != nil {
			t.Fatal(err)
		}
		if lines := bytes.Count(data, []byte("\n")) + 1; n > lines {
			t.Fatalf("%d results for %d lines", n, lines)
		}
	})
}
