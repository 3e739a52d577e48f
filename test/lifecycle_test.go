//go:build linux

package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
