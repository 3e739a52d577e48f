package approval

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestAuditRecordFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := OpenLog(path, true)
	if err != nil {
		t.Fatal(err)
	}
	exit := 3
	ts := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	rec := Record{Time: ts, Session: "s", RequestID: "abc", Kind: KindExec, Attempt: 1,
		Argv: []string{"git", "push"}, Cwd: "/w", Decision: "prompt", Approver: "tty", Outcome: Approved,
		Profile: "workspace-write", Layers: []string{"seccomp"}, Exit: &exit, DurationMS: 12,
		Denials: []Denial{{Kind: "fs-write", Path: "/etc/x"}},
		Rules:   []MatchedRule{{MatchedPrefix: []string{"git", "push"}, Decision: "prompt"}}}
	if err := l.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"time": "2026-01-02T03:04:05.000000006Z", "session": "s", "request_id": "abc",
		"kind": "exec", "attempt": 1.0, "cwd": "/w", "decision": "prompt", "approver": "tty",
		"outcome": "approved", "profile": "workspace-write", "exit": 3.0, "duration_ms": 12.0}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	for _, k := range []string{"argv", "rules_matched", "layers", "denials"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing field %s", k)
		}
	}
}

func TestAuditOpenError(t *testing.T) {
	if _, err := OpenLog(filepath.Join(t.TempDir(), "missing", "audit.jsonl"), false); err == nil {
		t.Fatal("OpenLog in a missing directory succeeded")
	}
}

func helperAuditWrite(path string, n int) error {
	l, err := OpenLog(path, false)
	if err != nil {
		return err
	}
	defer l.Close()
	// Big records, so that a non-atomic append would show.
	big := strings.Repeat(strconv.Itoa(n%10), 64<<10)
	return l.Write(Record{Session: strconv.Itoa(n), Argv: []string{"echo", big}, Cwd: "/w", Decision: "allow"})
}

func TestAuditConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs = 200
	runHelpers(t, "audit-write", path, procs, 16)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	seen := map[string]bool{}
	for sc.Scan() {
		var r struct {
			Session string   `json:"session"`
			Argv    []string `json:"argv"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not valid JSON: %v", len(seen)+1, err)
		}
		n, _ := strconv.Atoi(r.Session)
		if len(r.Argv) != 2 || r.Argv[1] != strings.Repeat(strconv.Itoa(n%10), 64<<10) {
			t.Fatalf("record of session %s is mangled", r.Session)
		}
		if seen[r.Session] {
			t.Fatalf("session %s logged twice", r.Session)
		}
		seen[r.Session] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != procs {
		t.Fatalf("%d records, want %d", len(seen), procs)
	}
}

// checkLines fails unless every line of the log at path is a whole JSON
// record and the file ends with a newline; it returns the records' sessions.
func checkLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("log does not end with a newline: ...%q", data[max(0, len(data)-40):])
	}
	var sessions []string
	for i, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			Session string `json:"session"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d does not parse (%v): %.80q", i+1, err, line)
		}
		sessions = append(sessions, r.Session)
	}
	return sessions
}

// TestAuditRepairsTornTail: a record torn by a crash (the log does not end
// with a newline) is cut off before the next record is appended, so that
// the next record is not glued onto it (issue 11 item 2).
func TestAuditRepairsTornTail(t *testing.T) {
	for name, tail := range map[string]string{
		"torn record":    `{"time":"2026-01-01T00:00:00Z","session":"torn","argv":["x`,
		"only torn line": "",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			content := `{"session":"a"}` + "\n" + tail
			if name == "only torn line" {
				content = `{"session":"to`
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := OpenLog(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if err := l.Write(Record{Session: "b"}); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(checkLines(t, path), ",")
			want := "a,b"
			if name == "only torn line" {
				want = "b"
			}
			if got != want {
				t.Errorf("sessions %s, want %s", got, want)
			}
		})
	}
}

// TestAuditRefusesNonRegular: a FIFO (or any non-regular file) as the
// audit log is refused at once, never waited on (issue 11 item 5).
func TestAuditRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A FIFO with a reader too: the records would go to whoever reads.
	r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, path := range []string{fifo, filepath.Join(dir, "fifo-no-reader"), dir, "/dev/null"} {
		if path == filepath.Join(dir, "fifo-no-reader") {
			if err := unix.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() {
			l, err := OpenLog(path, false)
			if err == nil {
				l.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("OpenLog(%s) succeeded", path)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenLog(%s) blocks", path)
		}
	}
}
