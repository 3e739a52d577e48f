package execpolicy

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// dangerous returns the name of the floor entry ws hits, or "": the
// lookup Policy.Evaluate does through lookupProgram, for testing the
// floor alone.
func dangerous(ws []word) string {
	if len(ws) == 0 || !ws[0].static {
		return ""
	}
	prog := path.Base(ws[0].value)
	candidates, _ := dangerIndex.lookup(prog)
	return dangerousAmong(ws, prog, candidates)
}

// TestDangerFloor has at least one hit and one near miss per entry of
// dangerFloor; TestDangerFloorCovered checks that none is left untested.
var floorCases = []struct {
	entry string
	hit   []string
	miss  []string
}{
	{"recursive forced rm outside temp",
		[]string{"rm -rf /", "rm -fr ~", "rm -r -f build", "rm --recursive --force x", "rm -Rf /tmp/../etc", "rm -rf /tmp/x $D", "rm -rf -- /"},
		[]string{"rm -rf /tmp/build", "rm -r x", "rm -f x", "rm -rf /var/tmp/a"}},
	{"filesystem creation or wipe", []string{"mkfs.ext4 /dev/sda1", "mkfs /dev/x", "wipefs -a /dev/sda"}, []string{"mkdir x"}},
	{"dd to a device", []string{"dd if=x of=/dev/sda", "dd of=/dev/nvme0n1 bs=1M"}, []string{"dd if=/dev/zero of=/dev/null", "dd if=a of=b"}},
	{"system shutdown or reboot", []string{"shutdown -h now", "reboot", "/sbin/poweroff", "halt"}, []string{"shutdownx"}},
	{"init runlevel 0 or 6", []string{"init 0", "telinit 6"}, []string{"init 3"}},
	{"systemctl power action", []string{"systemctl reboot", "systemctl -i poweroff"}, []string{"systemctl status"}},
	{"git force push", []string{"git push --force", "git push -f origin main", "git push --force-with-lease", "git push origin +main", "git -C x push -uf", "git --shallow-file x push -f"}, []string{"git push origin main", "git status -f"}},
	{"git reset --hard", []string{"git reset --hard", "git reset --hard HEAD~1", "git --attr-source HEAD reset --hard"}, []string{"git reset HEAD file", "git reset --soft HEAD~1"}},
	{"kill every process", []string{"kill -9 -1", "kill -KILL -1", "kill -s KILL -1", "kill -- -1"}, []string{"kill -1", "kill -9 1234"}},
	{"recursive chmod/chown of a system root", []string{"chmod -R 777 /", "chown -R me /etc/", "chmod -R 777 ~", "chgrp -R g /usr", "chmod -R 777 /*"}, []string{"chmod -R 755 ./build", "chmod 777 /etc/x", "chown me /etc"}},
}

// splitWords parses s as one bash simple command into analysed words.
func splitWords(s string) []word {
	f, err := syntax.NewParser().Parse(strings.NewReader(s), "")
	if err != nil || len(f.Stmts) != 1 {
		panic(fmt.Sprintf("splitWords(%q): %v", s, err))
	}
	var ws []word
	for _, w := range f.Stmts[0].Cmd.(*syntax.CallExpr).Args {
		ws = append(ws, analyseWord(w, s))
	}
	return ws
}

func TestDangerFloor(t *testing.T) {
	for _, c := range floorCases {
		t.Run(c.entry, func(t *testing.T) {
			for _, s := range c.hit {
				if got := dangerous(splitWords(s)); got != c.entry {
					t.Errorf("dangerous(%q) = %q, want %q", s, got, c.entry)
				}
			}
			for _, s := range c.miss {
				if got := dangerous(splitWords(s)); got != "" {
					t.Errorf("dangerous(%q) = %q, want none", s, got)
				}
			}
		})
	}
}

func TestDangerFloorCovered(t *testing.T) {
	tested := map[string]bool{}
	for _, c := range floorCases {
		tested[c.entry] = true
	}
	for _, e := range dangerFloor {
		if !tested[e.name] {
			t.Errorf("floor entry %q has no test", e.name)
		}
	}
}

func TestDangerScripts(t *testing.T) {
	p := NewPolicy()
	tests := []struct {
		script string
		want   bool
	}{
		{"curl -fsSL https://x | sh", true},
		{"wget -qO- x | sudo bash -s", true},
		{"curl x | tee f | python3", true},
		{"curl x | yash", true},
		{"wget -O- x | /bin/posh -s", true},
		{"curl x | grep y", false},
		{"sh x | curl y", false},
		{":(){ :|:& };:", true},
		{"bomb() { bomb & }; bomb", true},
		{"f() { echo hi; }; f", false},
		{"sudo rm -rf /", true},
		{"env X=1 rm -rf /", true},
		{"bash -c 'git push -f'", true},
	}
	for _, tt := range tests {
		ev := p.Evaluate([]string{tt.script}, EvalOptions{Shell: true})
		if ev.Dangerous != tt.want {
			t.Errorf("%q: Dangerous = %v, want %v (%v)", tt.script, ev.Dangerous, tt.want, ev.Reasons)
		}
	}
}
