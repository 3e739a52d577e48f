//go:build linux

package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTTYPromptIgnoresTerminalReplies: a sandboxed command writes to the
// person's terminal a query the terminal answers by typing into its own
// input (DECRQM, whose reply ends in "y"; ENQ, whose answerback is
// "PuTTY" in PuTTY), then makes the sandbox deny a write outside the
// workspace. Under on-failure the tty approver asks whether to re-run it
// with that write allowed; a terminal answering late (over ssh) types its
// reply after the prompt flushed the typeahead. The reply must not answer
// the prompt: only a person's key press may.
func TestTTYPromptIgnoresTerminalReplies(t *testing.T) {
	for _, tt := range []struct{ name, query, reply string }{
		{"decrqm", `\033[4$p`, "\x1b[4;2$y"},
		{"answerback", `\005`, "PuTTY"},
		{"title-report", `\033]2;y\007\033[21t`, "\x1b]ly\x1b\\"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newGateFixture(t, `prefix_rule(pattern=["sh", "probe.sh"], decision="allow")`+"\n")
			outside, err := os.MkdirTemp("/var/tmp", "gatedexec-reply-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(outside)
			target := filepath.Join(outside, "escalated")
			mustWrite(t, filepath.Join(f.ws, "probe.sh"), "printf '"+tt.query+"'\ntouch "+target+"\n")
			result := filepath.Join(f.dir, "result.json")
			r := startTTY(t, f.env, f.runArgs(result, []string{"--approval-policy", "on-failure"}, "sh", "probe.sh")...)
			// The person approves running the script in the sandbox.
			r.waitPrompt(t)
			r.send(t, "y")
			// The escalation prompt: the terminal's late reply, then
			// the person's Ctrl-C, which denies whatever came before.
			r.cursor = r.log.waitFor(t, r.cursor, "re-run with more access?")
			r.waitPrompt(t)
			r.send(t, tt.reply)
			r.send(t, "\x03")
			code, out := r.wait(t)
			if exists(t, target) {
				t.Fatalf("the terminal's reply to the command's query approved its escalation (exit %d):\n%q", code, out)
			}
			if code == 0 {
				t.Errorf("exit 0 without an escalation:\n%q", out)
			}
			if strings.Contains(answerShown(out), "once") {
				t.Errorf("the prompt took an answer from the reply:\n%q", out)
			}
		})
	}
}

// TestTTYNetworkPromptHoldsTheTerminal: a network prompt rule asks when
// the connection is made, while the command runs on a pty relayed to the
// person's terminal. The command goes on writing (here a stream of lines
// it could have made a fake question of, wiping the prompt's own); none
// of it may reach the terminal while the prompt asks, and the person's
// answer goes to the prompt, not to the command.
func TestTTYNetworkPromptHoldsTheTerminal(t *testing.T) {
	requireIsolation(t)
	f := newGateFixture(t, `prefix_rule(pattern=["bash", "net.sh"], decision="allow")
network_rule(host = "later.test", protocol = "http", decision = "prompt")
`)
	prof := filepath.Join(f.dir, "net.toml")
	mustWrite(t, prof, "extends = \"workspace-write\"\n[network]\nmode = \"proxy\"\nallow_hosts = [\"allowed.test\"]\n")
	// The connection waits for the prompt. Once the prompt is drawn (the
	// test makes "go"), the command writes a line and says so ("written"),
	// and then writes until the connection ends, which the answer does.
	mustWrite(t, filepath.Join(f.ws, "net.sh"), `( exec 3<>/dev/tcp/later.test/80
  printf 'GET / HTTP/1.0\r\nHost: later.test\r\n\r\n' >&3; cat <&3 >/dev/null ) 2>/dev/null &
conn=$!
while [ ! -e go ]; do sleep 0.01; done
echo SPOOF; : >written
while kill -0 $conn 2>/dev/null; do echo SPOOF; done
`)
	result := filepath.Join(f.dir, "result.json")
	r := startTTY(t, f.env, f.runArgs(result, []string{"-p", prof}, "bash", "net.sh")...)
	r.waitPrompt(t)
	r.send(t, "y")
	from := r.log.waitFor(t, r.cursor, "connections to later.test:80")
	r.cursor = from
	r.waitPrompt(t)
	mustWrite(t, filepath.Join(f.ws, "go"), "")
	waitExists(t, filepath.Join(f.ws, "written"))
	r.send(t, "n")
	r.log.waitFor(t, r.cursor, "deny\r\n")
	r.wait(t)
	out := r.log.String()
	start := strings.LastIndex(out[:from], "+-- gatedexec:")
	end := strings.Index(out[from:], "deny\r\n")
	if start < 0 || end < 0 {
		t.Fatalf("no network prompt and answer on the terminal:\n%q", out)
	}
	if shown := out[start : from+end]; strings.Contains(shown, "SPOOF") {
		t.Errorf("the command's output reached the terminal while the network prompt asked:\n%q", shown)
	}
	if tail := out[from+end:]; !strings.Contains(tail, "SPOOF") {
		t.Errorf("the command's output held during the prompt was not shown after it:\n%q", tail)
	}
}

// waitExists waits until path exists; the bound only stops a broken test
// from hanging.
func waitExists(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(ttyDeadline); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never made", path)
		}
	}
}

// TestTTYKeysWithoutStdin: with stdin elsewhere (/dev/null) and stdout and
// stderr on the person's terminal, the command got the terminal itself on
// them, open for reading too, and read what the person typed next (a
// password, the answer to the next prompt). It gets a pty instead, whose
// input no one feeds.
func TestTTYKeysWithoutStdin(t *testing.T) {
	f := newGateFixture(t, "")
	cmd := exec.Command("sh", "-c", `exec "$0" "$@" </dev/null`, gatedexecBin, "sandbox", "-p", "workspace-write",
		"-C", f.ws, "-w", f.ws, "--",
		"bash", "-c", `echo ready >&2; if read -r -t 3 x <&2; then echo "got=$x" >&2; else echo "no keys" >&2; fi`)
	cmd.Env = f.env
	r := startOnTTY(t, cmd)
	r.cursor = r.log.waitFor(t, 0, "ready")
	r.send(t, "hunter2\n")
	code, out := r.wait(t)
	if strings.Contains(out, "got=hunter2") {
		t.Fatalf("the command read the person's keys from its stderr (exit %d):\n%q", code, out)
	}
	if code != 0 || !strings.Contains(out, "no keys") {
		t.Errorf("exit %d, want 0 and the read timing out:\n%q", code, out)
	}
}
