//go:build unix

package test

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestConcurrentRunsShareSessionAndAudit runs 200 gatedexec run processes at
// once against one session file and one audit log: every session approval
// must be kept (a second round with the deny approver runs all 200 from the
// session), and every audit record must be one whole JSON line.
func TestConcurrentRunsShareSessionAndAudit(t *testing.T) {
	const n = 200
	f := newGateFixture(t, `prefix_rule(pattern=["touch"], decision="prompt")`+"\n")
	approver := filepath.Join(f.dir, "approve.sh")
	writeScript(t, approver, `id=$(sed -n 's/.*"id": *"\([0-9a-f]*\)".*/\1/p' | head -1)
printf '{"id":"%s","outcome":"approved_for_session"}\n' "$id"
`)

	round := func(approverSpec string) {
		argss := make([][]string, n)
		for i := range argss {
			result := filepath.Join(f.dir, fmt.Sprintf("result-%s-%d.json", approverSpec[:4], i))
			argss[i] = f.runWith(approverSpec, result, []string{"--session", "shared"}, "touch", fmt.Sprintf("f%d", i))
		}
		codes, outs := runAll(t, f.env, argss, nil)
		for i, code := range codes {
			if code != 0 {
				t.Errorf("run %d (%s): exit %d\n%s", i, approverSpec, code, outs[i])
			}
		}
	}
	round("exec:" + approver)
	// Every approval above must have reached the session file.
	round("deny")

	recs := readAudit(t, f.audit)
	bySession := 0
	for _, rec := range recs {
		if rec.Approver == "session" && rec.Exit != nil {
			bySession++
		}
	}
	// Two records per run (the decision, then the outcome), two rounds.
	if len(recs) != 4*n {
		t.Errorf("audit log has %d records, want %d", len(recs), 4*n)
	}
	if bySession != n {
		t.Errorf("%d runs of the second round were approved by the session, want %d", bySession, n)
	}
	for i := range n {
		if !exists(t, filepath.Join(f.ws, fmt.Sprintf("f%d", i))) {
			t.Errorf("run %d did not run", i)
		}
	}
}
