package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentRunsShareSessionAndAudit runs 200 gatedexec run processes at
// once against one session file and one audit log: every session approval
// must be kept (a second round with the deny approver runs all 200 from the
// session), and every audit record must be one whole JSON line.
func TestConcurrentRunsShareSessionAndAudit(t *testing.T) {
	const n = 200
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	rules := filepath.Join(dir, "r.rules")
	approver := filepath.Join(dir, "approve.sh")
	audit := filepath.Join(dir, "audit.jsonl")
	for path, text := range map[string]string{
		rules:    `prefix_rule(pattern=["touch"], decision="prompt")` + "\n",
		approver: "#!/bin/sh\nid=$(sed -n 's/.*\"id\": *\"\\([0-9a-f]*\\)\".*/\\1/p' | head -1)\nprintf '{\"id\":\"%s\",\"outcome\":\"approved_for_session\"}\\n' \"$id\"\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "GATEDEXEC_SYSTEM_DIR="+filepath.Join(dir, "etc"))

	round := func(approverSpec string) {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(gatedexecBin, "run", "-C", ws, "-r", rules, "--session", "shared",
					"--approver", approverSpec, "--audit-log", audit, "--", "touch", fmt.Sprintf("f%d", i))
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("run %d (%s): %v\n%s", i, approverSpec, err, out)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	round("exec:" + approver)
	// Every approval above must have reached the session file.
	round("deny")

	f, err := os.Open(audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	bySession := 0
	lines := 0
	for sc.Scan() {
		lines++
		var rec struct {
			Approver string `json:"approver"`
			Exit     *int   `json:"exit"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("audit line %d is not JSON: %v: %q", lines, err, sc.Text())
		}
		if rec.Approver == "session" && rec.Exit != nil {
			bySession++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// Two records per run (the decision, then the outcome), two rounds.
	if lines != 4*n {
		t.Errorf("audit log has %d records, want %d", lines, 4*n)
	}
	if bySession != n {
		t.Errorf("%d runs of the second round were approved by the session, want %d", bySession, n)
	}
	for i := range n {
		if _, err := os.Stat(filepath.Join(ws, fmt.Sprintf("f%d", i))); err != nil {
			t.Errorf("run %d did not run: %v", i, err)
		}
	}
}
