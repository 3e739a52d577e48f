package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/execpolicy"
)

func sessionReq(i int) *Request {
	return &Request{Argv: []string{"echo", strconv.Itoa(i)}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec}
}

func TestSessionIDValidation(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"abc-1.2_X", true},
		{"", false},
		{".", false},
		{"..", false},
		{"../x", false},
		{"a/b", false},
		{"a b", false},
		{string(make([]byte, 129)), false},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"x\x00", false},
		{"x\n", false},
		{"\nx", false},
		{"é", false},
		{"...", true},
		{"-", true},
	} {
		_, err := OpenSession(dir, tc.id)
		if (err == nil) != tc.ok {
			t.Errorf("OpenSession(%q) error = %v, want ok=%v", tc.id, err, tc.ok)
		}
	}
}

func TestSessionKeyExact(t *testing.T) {
	s, err := OpenSession(t.TempDir(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	base := sessionReq(1)
	if err := s.Add(base); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("session file mode %v, want 0600", fi.Mode().Perm())
	}
	variants := map[string]*Request{
		"same":       {Argv: []string{"echo", "1"}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec},
		"argv":       {Argv: []string{"echo", "1", "x"}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec},
		"joined":     {Argv: []string{"echo 1"}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec},
		"cwd":        {Argv: []string{"echo", "1"}, Cwd: "/w2", Profile: "workspace-write", Kind: KindExec},
		"profile":    {Argv: []string{"echo", "1"}, Cwd: "/w", Profile: "read-only", Kind: KindExec},
		"escalation": {Argv: []string{"echo", "1"}, Cwd: "/w", Profile: "workspace-write", Kind: KindEscalation, Escalation: "network on"},
		"dangerous":  {Argv: []string{"echo", "1"}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec, Dangerous: true},
		// Approved under no managed layer, asked under one: the ceiling
		// changed, and the question is a new one.
		"managed": {Argv: []string{"echo", "1"}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec, ManagedDigest: "m1"},
		// Asked by a rule now, where it asked for want of one before.
		"rule": {Argv: []string{"echo", "1"}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec, Decision: "prompt",
			Matched: []MatchedRule{{MatchedPrefix: []string{"echo"}, Decision: "prompt", Source: "/etc/gatedexec/rules/m.rules:1:1"}}},
		"reason": {Argv: []string{"echo", "1"}, Cwd: "/w", Profile: "workspace-write", Kind: KindExec,
			Reasons: []execpolicy.Reason{{Kind: execpolicy.ReasonUnanalysable, Detail: "x"}}},
	}
	for name, r := range variants {
		got, err := s.Has(r)
		if err != nil {
			t.Fatal(err)
		}
		if want := name == "same"; got != want {
			t.Errorf("%s: Has = %v, want %v", name, got, want)
		}
	}
	if err := s.Add(variants["dangerous"]); !errors.Is(err, ErrDangerous) {
		t.Errorf("Add(dangerous) = %v, want ErrDangerous", err)
	}
}

// TestSessionDamagedFile: a damaged session file approves nothing, and
// the next approval replaces it (issue 11 item 8: it used to fail every
// later Add with exit 125 and no hint).
func TestSessionDamagedFile(t *testing.T) {
	for name, content := range map[string]string{
		"torn":         `{"version":3,"session":"bad","entries":[`,
		"foreign":      `{"version":3,"session":"other","entries":[]}`,
		"future":       `{"version":4,"session":"bad","entries":[]}`,
		"unknown keys": `{"version":3,"session":"bad","entries":[],"x":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			s, err := OpenSession(t.TempDir(), "bad")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.Has(sessionReq(1)); err == nil || ok || !strings.Contains(err.Error(), s.path) {
				t.Errorf("Has on a damaged file = %v, %v; want an error naming it", ok, err)
			}
			if err := s.Add(sessionReq(1)); err != nil {
				t.Fatalf("Add on a damaged file: %v", err)
			}
			if ok, err := s.Has(sessionReq(1)); err != nil || !ok {
				t.Errorf("after Add: Has = %v, %v", ok, err)
			}
		})
	}
}

// TestSessionNotRegular: a FIFO at the session path must neither hang nor
// approve (issue 11 item 5, the same fault as the audit log's).
func TestSessionNotRegular(t *testing.T) {
	s, err := OpenSession(t.TempDir(), "fifo")
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(s.path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Has(sessionReq(1))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Has on a FIFO: no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Has on a FIFO hangs")
	}
}

// TestSessionExactBytes: approving an argument with an invalid UTF-8 byte
// does not approve the argument that byte becomes in a lossy encoding
// (U+FFFD), nor does the same hold for the working directory (item 1).
func TestSessionExactBytes(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenSession(dir, "U9")
	if err != nil {
		t.Fatal(err)
	}
	req := func(arg, cwd string) *Request {
		return &Request{ID: "x", Argv: []string{"touch", arg}, Cwd: Bytes(cwd), Profile: "workspace-write", Kind: KindExec}
	}
	if err := s.Add(req("h\xff", "/w\xfe")); err != nil {
		t.Fatal(err)
	}
	// A fresh handle reads the file back from disk.
	s2, err := OpenSession(dir, "U9")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arg, cwd string
		want     bool
	}{
		{"h\xff", "/w\xfe", true},
		{"h\xef\xbf\xbd", "/w\xfe", false},
		{"h\xff", "/w\xef\xbf\xbd", false},
		{"h\xfe", "/w\xfe", false},
	} {
		if got, err := s2.Has(req(tc.arg, tc.cwd)); err != nil || got != tc.want {
			t.Errorf("Has(%q, %q) = %v, %v; want %v", tc.arg, tc.cwd, got, err, tc.want)
		}
	}
}

// TestSessionVersion1Ignored: a version 1 file held argv as plain JSON
// strings, where U+FFFD may stand for any invalid byte: it approves
// nothing and the next Add replaces it.
func TestSessionVersion1Ignored(t *testing.T) {
	s, err := OpenSession(t.TempDir(), "old")
	if err != nil {
		t.Fatal(err)
	}
	r := sessionReq(1)
	v1 := `{"version":1,"session":"old","entries":[{"argv":` + mustJSON(t, []string(r.Argv)) + `,"cwd":"` + string(r.Cwd) +
		`","profile":"` + r.Profile + `","profile_digest":"","kind":"exec"}]}`
	if err := os.WriteFile(s.path, []byte(v1), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Has(r); err != nil || ok {
		t.Errorf("Has on a version 1 file = %v, %v; want false, nil", ok, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSessionConcurrentGoroutines(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			s, err := OpenSession(dir, "shared")
			if err == nil {
				err = s.Add(sessionReq(i))
			}
			if err == nil {
				var ok bool
				ok, err = s.Has(sessionReq(i))
				if err == nil && !ok {
					err = fmt.Errorf("entry %d missing right after Add", i)
				}
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkSessionFile(t, dir, "shared", n)
}

func helperSessionAdd(dir string, n int) error {
	s, err := OpenSession(dir, "shared")
	if err != nil {
		return err
	}
	for i := range 5 {
		if err := s.Add(sessionReq(n*5 + i)); err != nil {
			return err
		}
	}
	return nil
}

func TestSessionConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	const procs = 20
	runHelpers(t, "session-add", dir, procs, procs)
	checkSessionFile(t, dir, "shared", procs*5)
}

// checkSessionFile asserts the file parses and holds entries echo 0..n-1.
func checkSessionFile(t *testing.T, dir, id string, n int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var sf sessionFile
	if err := json.Unmarshal(data, &sf); err != nil {
		t.Fatalf("session file is not valid JSON: %v", err)
	}
	if len(sf.Entries) != n {
		t.Fatalf("session file has %d entries, want %d", len(sf.Entries), n)
	}
	s, err := OpenSession(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if ok, err := s.Has(sessionReq(i)); err != nil || !ok {
			t.Fatalf("entry %d: Has = %v, %v", i, ok, err)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left behind: %v", tmps)
	}
}

func TestDefaultSessionDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/st", "HOME": "/h"}, "/st/gatedexec/sessions"},
		{map[string]string{"XDG_STATE_HOME": "rel", "HOME": "/h"}, "/h/.local/state/gatedexec/sessions"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/gatedexec/sessions"},
		{map[string]string{"HOME": "rel", "XDG_STATE_HOME": "/st"}, "/st/gatedexec/sessions"},
	} {
		got, err := DefaultSessionDir(env(tc.env))
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("DefaultSessionDir(%v) = %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}

// TestOpenSessionRefusesForeignDir: approvals in a directory someone else
// owns or may write are not trusted.
func TestOpenSessionRefusesForeignDir(t *testing.T) {
	if _, err := OpenSession(t.TempDir(), "s"); err != nil {
		t.Fatalf("own private directory: %v", err)
	}
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSession(shared, "s"); err == nil {
		t.Error("a world-writable directory was accepted")
	}
	if os.Geteuid() != 0 {
		return // only root can give a directory away
	}
	foreign := t.TempDir()
	if err := os.Chown(foreign, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSession(foreign, "s"); err == nil {
		t.Error("a directory owned by another user was accepted")
	}
}

// TestSessionVersion2Ignored: a version 2 entry did not say which managed
// layer or rules it was given under, so it cannot be told from one given
// under another: it approves nothing.
func TestSessionVersion2Ignored(t *testing.T) {
	s, err := OpenSession(t.TempDir(), "old")
	if err != nil {
		t.Fatal(err)
	}
	r := sessionReq(1)
	v2 := `{"version":2,"session":"old","entries":[{"argv":` + mustJSON(t, r.Argv) + `,"cwd":` + mustJSON(t, r.Cwd) +
		`,"profile":"` + r.Profile + `","profile_digest":"","kind":"exec"}]}`
	if err := os.WriteFile(s.path, []byte(v2), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Has(r); err != nil || ok {
		t.Errorf("Has on a version 2 file = %v, %v; want false, nil", ok, err)
	}
	if err := s.Add(r); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Has(r); err != nil || !ok {
		t.Errorf("after Add: Has = %v, %v", ok, err)
	}
}
