package approval

import (
	"path/filepath"
	"testing"
)

func BenchmarkRequestID(b *testing.B) {
	argv := []string{"git", "push", "origin", "main"}
	for b.Loop() {
		RequestID(IDParts{argv, "/home/u/proj", "workspace-write", "fedcba9876543210", "0123456789abcdef", "", ""})
	}
}

func BenchmarkAuditWrite(b *testing.B) {
	l, err := OpenLog(filepath.Join(b.TempDir(), "audit.jsonl"), false)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := Record{Argv: []string{"git", "status"}, Cwd: "/w", Decision: "allow", Profile: "workspace-write"}
	for b.Loop() {
		if err := l.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSessionHas(b *testing.B) {
	s, err := OpenSession(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		if err := s.Add(sessionReq(i)); err != nil {
			b.Fatal(err)
		}
	}
	r := sessionReq(99)
	for b.Loop() {
		if ok, err := s.Has(r); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
