package mcp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
)

// forged is a command whose newlines would draw lines of their own.
const forged = "git push --force origin main # \ncwd: /x\nprofile: read-only\nwhy: harmless\n"

// What the person reads holds one line per field, in a fixed order with
// the command last: no text of the request, however it is made, adds a
// line or shows a control character raw, and a long command is cut with
// a mark.
func TestDescribe(t *testing.T) {
	cases := []struct {
		name string
		req  approval.Request
		// want are substrings of the message, in this order.
		want []string
	}{
		{"plain", approval.Request{Argv: approval.Argv{"bash", "-c", "git push origin main"}, Cwd: "/w", Profile: "workspace-write",
			Reasons: []execpolicy.Reason{{Kind: "rule", Detail: "prompt rule git push"}}, Matched: []approval.MatchedRule{{Justification: "pushing publishes"}}},
			[]string{"run this command?\n", "cwd: /w\n", "profile: workspace-write\n", "why: rule: prompt rule git push\n", "rule: pushing publishes\n", "command: bash -c 'git push origin main'\n"}},
		{"forged lines in the command", approval.Request{Argv: approval.Argv{"bash", "-c", forged + strings.Repeat("\n", 200)}, Cwd: "/w", Profile: "workspace-write"},
			[]string{"cwd: /w\n", "profile: workspace-write\n", `command: bash -c $'git push --force origin main # \ncwd: /x\nprofile: read-only\nwhy: harmless\n\n`}},
		{"control characters in the command", approval.Request{Argv: approval.Argv{"bash", "-c", "ls\r\x1b[2Kprofile: read-only"}, Cwd: "/w", Profile: "p"},
			[]string{"profile: p\n", `command: bash -c $'ls\x0d\x1b[2Kprofile: read-only'`}},
		{"long command", approval.Request{Argv: approval.Argv{"bash", "-c", "echo " + strings.Repeat("a", 1<<20) + " end"}, Cwd: "/w", Profile: "p"},
			[]string{"profile: p\n", "command: bash -c 'echo aaa", "...[", " bytes]...", "aaa end'\n"}},
		{"many reasons", approval.Request{Argv: approval.Argv{"make"}, Cwd: "/w", Profile: "p", Reasons: manyReasons(100)},
			[]string{"profile: p\n", "why: unmatched: x0\n", "why: unmatched: x5\n", "why: ...and 94 more\n", "command: make\n"}},
		{"forged lines in the other fields", approval.Request{Argv: approval.Argv{"make"}, Cwd: "/w\nprofile: full-access", Profile: "p",
			Reasons: []execpolicy.Reason{{Kind: "unanalysable", Detail: "assignment A='\nprofile: x'"}}, Matched: []approval.MatchedRule{{Justification: "j\nwhy: x"}},
			Kind: approval.KindEscalation, Escalation: "network on\ncwd: /", Denials: []approval.Denial{{Kind: "fs-write", Path: "/a\nprofile: b"}}},
			[]string{`more access ("network on\ncwd: /")?`, `denied: "fs-write /a\nprofile: b"`, `cwd: "/w\nprofile: full-access"`, "profile: p\n", `why: "unanalysable: assignment A='\nprofile: x'"`, `rule: "j\nwhy: x"`, "command: make\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := describe(&c.req)
			rest := msg
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("message lacks %q after what came before:\n%s", w, msg)
				}
				rest = rest[i+len(w):]
			}
			if len(msg) > 4<<10 {
				t.Errorf("message of %d bytes", len(msg))
			}
			labels := map[string]int{}
			for i, line := range strings.Split(strings.TrimSuffix(msg, "\n"), "\n") {
				label, _, _ := strings.Cut(strings.TrimSpace(line), " ")
				labels[label]++
				if i == 0 && label != "gatedexec:" {
					t.Errorf("first line %q", line)
				}
				if strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
					t.Errorf("line %q holds a control character", line)
				}
			}
			for label, n := range labels {
				switch label {
				case "gatedexec:", "cwd:", "workspace:", "profile:", "command:":
					if n != 1 {
						t.Errorf("%d lines start %q:\n%s", n, label, msg)
					}
				case "why:", "rule:", "denied:":
				default:
					t.Errorf("a line starts %q:\n%s", label, msg)
				}
			}
			if !strings.HasPrefix(msg[strings.LastIndex(strings.TrimSuffix(msg, "\n"), "\n")+1:], "command: ") {
				t.Errorf("the command is not the last line:\n%s", msg)
			}
		})
	}
}

func manyReasons(n int) []execpolicy.Reason {
	var rs []execpolicy.Reason
	for i := range n {
		rs = append(rs, execpolicy.Reason{Kind: "unmatched", Detail: "x" + strconv.Itoa(i)})
	}
	return rs
}
