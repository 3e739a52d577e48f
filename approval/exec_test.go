package approval

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// goodAnswer is shell that answers the request on stdin with outcome $1.
const goodAnswer = `req=$(cat)
id=$(printf '%s' "$req" | sed 's/^{"id":"\([0-9a-f]*\)".*/\1/')
`

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecApprover(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	reqFile := filepath.Join(dir, "req.json")
	escapedPid := filepath.Join(dir, "escaped.pid")
	t.Cleanup(func() {
		if b, err := os.ReadFile(escapedPid); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	scripts := []struct {
		name, body string
		timeout    time.Duration
		want       Outcome
		errText    string
	}{
		{"good", goodAnswer + `printf '%s' "$req" > ` + reqFile + `
printf '{"id":"%s","outcome":"approved_for_session","reason":"ok"}\n' "$id"`, 0, ApprovedForSession, ""},
		{"denies", goodAnswer + `printf '{"id":"%s","outcome":"denied"}' "$id"`, 0, Denied, ""},
		{"malformed", goodAnswer + `printf '{"id":"%s","outcome":' "$id"`, 0, Denied, "bad response JSON"},
		{"two-values", goodAnswer + `printf '{"id":"%s","outcome":"approved"} {}' "$id"`, 0, Denied, "more than one value"},
		{"mismatched", goodAnswer + `printf '{"id":"%s0","outcome":"approved"}' "$id"`, 0, Denied, "does not match"},
		{"unknown-outcome", goodAnswer + `printf '{"id":"%s","outcome":"yes"}' "$id"`, 0, Denied, "unknown outcome"},
		{"deferred-outcome", goodAnswer + `printf '{"id":"%s","outcome":"deferred"}' "$id"`, 0, Denied, "unknown outcome"},
		{"crashing", goodAnswer + `printf '{"id":"%s","outcome":"approved"}' "$id"; exit 3`, 0, Denied, "exit status 3"},
		{"slow", `sleep 1000 & echo $! > ` + pidFile + `
wait`, 300 * time.Millisecond, Denied, "no answer within"},
		// Issue 11 item 6: an approver that answers and exits while a
		// child keeps its stdout open used to stall until the timeout
		// (five minutes); the answer counts and the child is killed.
		{"child-holds-stdout", goodAnswer + `sleep 1000 &
printf '{"id":"%s","outcome":"approved"}' "$id"`, 20 * time.Second, Approved, ""},
		// A child in another session escapes the group kill: deny
		// after a short grace, not at the timeout.
		{"escaped-child-holds-stdout", goodAnswer + `setsid sh -c 'echo $$ > ` + escapedPid + `; exec sleep 1000' &
sleep 0.3
printf '{"id":"%s","outcome":"approved"}' "$id"`, 20 * time.Second, Denied, "still holds its stdout"},
		{"huge", goodAnswer + `printf '{"id":"%s","outcome":"approved","reason":"' "$id"; head -c 2000000 /dev/zero | tr '\0' x; printf '"}'`, 0, Denied, "larger than"},
	}
	req := &Request{ID: RequestID(IDParts{[]string{"git", "push"}, "/w", "p", "pd", "d", "", ""}), Argv: []string{"git", "push"}, Cwd: "/w", Kind: KindExec}
	// Each also without a terminal (NoTerminal), where its stderr is a
	// pipe gatedexec copies from, which a child can hold open too.
	for _, sc := range scripts {
		for _, noTerm := range []bool{false, true} {
			name := sc.name
			if noTerm {
				name += "-no-terminal"
			}
			t.Run(name, func(t *testing.T) {
				a := &ExecApprover{Argv: []string{writeScript(t, dir, name, sc.body)}, Timeout: sc.timeout}
				if noTerm {
					a.NoTerminal, a.Stderr = true, &bytes.Buffer{}
				}
				start := time.Now()
				resp, err := a.Approve(context.Background(), req)
				if el := time.Since(start); el > 5*time.Second {
					t.Errorf("the approver took %v to settle", el)
				}
				if resp.Outcome != sc.want || resp.ID != req.ID {
					t.Fatalf("outcome %+v, want %s (err %v)", resp, sc.want, err)
				}
				if sc.errText == "" {
					if err != nil {
						t.Fatalf("unexpected error %v", err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), sc.errText) || !strings.Contains(resp.Reason, sc.errText) {
					t.Fatalf("error %v / reason %q, want them to mention %q", err, resp.Reason, sc.errText)
				}
			})
		}
	}
	data, err := os.ReadFile(reqFile)
	if err != nil || !strings.Contains(string(data), `"argv":["git","push"]`) {
		t.Errorf("good approver saw request %q (%v)", data, err)
	}
	// The slow approver's background child is in its process group and
	// must have been killed with it.
	pidText, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if !waitGone(pid) {
		t.Errorf("approver's child %d survived the timeout", pid)
	}
}

// waitGone reports whether pid exits (or is a zombie) within a generous bound.
func waitGone(pid int) bool {
	for range 200 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			if syscall.Kill(pid, 0) != nil {
				return true
			}
		} else if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func TestExecApproverMissingProgram(t *testing.T) {
	a := &ExecApprover{Argv: []string{filepath.Join(t.TempDir(), "nope")}}
	resp, err := a.Approve(context.Background(), &Request{ID: "x"})
	if err == nil || resp.Outcome != Denied {
		t.Fatalf("missing approver: %+v, %v", resp, err)
	}
}

func TestDenyAndDeferApprovers(t *testing.T) {
	r := &Request{ID: "id1"}
	if resp, err := (DenyApprover{}).Approve(context.Background(), r); err != nil || resp.Outcome != Denied || resp.ID != "id1" {
		t.Errorf("deny: %+v, %v", resp, err)
	}
	if resp, err := (DeferApprover{}).Approve(context.Background(), r); err != nil || resp.Outcome != Deferred || resp.ID != "id1" || resp.Outcome.Approves() {
		t.Errorf("defer: %+v, %v", resp, err)
	}
}

// TestParseResponseKeys checks that a reply approves only when its keys
// say so unambiguously: a repeated or differently spelt key denies.
func TestParseResponseKeys(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, out string
		want      Outcome
		errText   string
	}{
		{"plain", `{"id":"` + id + `","outcome":"approved","reason":"r"}`, Approved, ""},
		{"extra-key", `{"id":"` + id + `","outcome":"approved","note":{"x":[1]}}`, Approved, ""},
		{"repeated-outcome", `{"id":"` + id + `","outcome":"denied","outcome":"approved"}`, "", "given twice"},
		{"repeated-id", `{"id":"x","id":"` + id + `","outcome":"approved"}`, "", "given twice"},
		{"upper-outcome", `{"id":"` + id + `","outcome":"denied","OUTCOME":"approved"}`, "", "not spelt"},
		{"upper-id", `{"ID":"` + id + `","outcome":"approved"}`, "", "not spelt"},
		{"folded-key", `{"id":"` + id + `","outcome":"denied","rea\u017fon":"x"}`, "", "not spelt"},
		{"array", `["` + id + `","approved"]`, "", "not an object"},
		{"null", `null`, "", "not an object"},
		{"missing-outcome", `{"id":"` + id + `"}`, "", "unknown outcome"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := parseResponse([]byte(tc.out), id)
			if tc.want != "" {
				if err != nil || resp.Outcome != tc.want || resp.ID != id {
					t.Fatalf("parseResponse(%s) = %+v, %v; want %s", tc.out, resp, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errText) {
				t.Fatalf("parseResponse(%s) = %+v, %v; want an error mentioning %q", tc.out, resp, err, tc.errText)
			}
		})
	}
}

// TestExecApproverStatus: gatedexec says that it waits for the approver,
// and how long it will; the default bound is well under a minute.
func TestExecApproverStatus(t *testing.T) {
	if DefaultExecTimeout >= time.Minute {
		t.Errorf("DefaultExecTimeout = %v, want well under a minute", DefaultExecTimeout)
	}
	dir := t.TempDir()
	var status strings.Builder
	a := &ExecApprover{Argv: []string{writeScript(t, dir, "ok", goodAnswer+`printf '{"id":"%s","outcome":"approved"}' "$id"`)}, Status: &status, Timeout: 7 * time.Second}
	req := &Request{ID: "0123", Argv: []string{"x"}, Kind: KindExec}
	if resp, err := a.Approve(context.Background(), req); err != nil || resp.Outcome != Approved {
		t.Fatalf("%+v, %v", resp, err)
	}
	if got := status.String(); !strings.HasPrefix(got, "gatedexec: waiting for approver exec:") || !strings.Contains(got, "(up to 7s)") {
		t.Errorf("status line %q", got)
	}
}

// With NoTerminal an exec approver can read no terminal: not its stderr,
// which was the caller's terminal, nor /dev/tty. On an agent's pty the
// model is who would type the answer.
func TestExecApproverNoTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go io.Copy(io.Discard, ptmx)
	// Approves only when it finds no terminal to read.
	script := writeScript(t, t.TempDir(), "approver", goodAnswer+`if [ -t 2 ] || ( : </dev/tty ) 2>/dev/null; then
  printf '{"id":"%s","outcome":"denied","reason":"a terminal"}' "$id"
else
  printf '{"id":"%s","outcome":"approved"}' "$id"
fi`)
	for _, none := range []bool{false, true} {
		a := &ExecApprover{Argv: []string{script}, Stderr: tty, NoTerminal: none}
		resp, err := a.Approve(context.Background(), &Request{ID: "abc123"})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Outcome == Approved; got != none {
			t.Errorf("NoTerminal %v: %s (%s), want approved %v", none, resp.Outcome, resp.Reason, none)
		}
	}
}
