package execpolicy

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestReadSedScript checks what readSedScript finds a script runs.
func TestReadSedScript(t *testing.T) {
	tests := []struct {
		script   string
		commands []string
		pattern  bool // runs the pattern space
		unsure   bool
	}{
		{script: "s/foo/bar/p"},
		{script: "s/x/y/g"},
		{script: "/end/d"},
		{script: "$d"},
		{script: "y/abc/xyz/"},
		{script: "s/hello/there/;/e/d;$p"},
		{script: "/re/,/ee/{s/e/E/g;p}"},
		{script: ":a;N;$!ba;s/\\n/ /g"},
		{script: "s/[/]e/x/g"},
		{script: "1i\\\ne here\n$a e there; e too"},
		{script: "s/a/b/w out.e"},
		{script: "# e comment\ns/e/f/"},
		{script: "bend;:end"},
		{script: "1e touch p", commands: []string{"touch p"}},
		{script: "1 e  touch p; rm x", commands: []string{"touch p; rm x"}},
		{script: "$!{e echo E\n}", commands: []string{"echo E"}},
		{script: "s/a/b/;e", pattern: true},
		{script: "s/a/touch p/e", pattern: true},
		{script: "s/a/b/3ge", pattern: true},
		{script: "s x y e", pattern: true},
		{script: "s/[/]/x/e", pattern: true},
		{script: "y/a/b/;e date", commands: []string{"date"}},
		{script: "/x/I,/y/Me rm x", commands: []string{"rm x"}},
		{script: "0~2!e rm x", commands: []string{"rm x"}},
		{script: ": x;e rm x", commands: []string{"rm x"}},
		{script: "a foo\ne rm x", commands: []string{"rm x"}},
		{script: "a foo\\\ne rm x"},
		// e's command is text, as a's is: continued by a
		// backslash-newline, its escapes decoded.
		{script: "1e echo \\\nrm p", commands: []string{"echo \nrm p"}},
		{script: "1e\\\nrm p", commands: []string{"rm p"}},
		{script: "1e\\rm p", commands: []string{"rm p"}},
		{script: "1e echo \\", commands: []string{"echo "}},
		{script: "1e echo\\x41\\o101\\d065\\t\\q\\\\", commands: []string{"echoAAA\tq\\"}},
		{script: "1e echo\\cA\\x\\", commands: []string{"echo\x01x"}},
		{script: "e;p", commands: []string{";p"}},
		{script: "1e\\", pattern: true},
		{script: "a\\\n1e rm p"},
		{script: "s/a\\/e/b/e", pattern: true},
		{script: "s/a/\\\n/e", pattern: true},
		{script: "s/a\n/b/e", unsure: true},
		{script: "1!!e", unsure: true},
		{script: "1k e", unsure: true},
		{script: "l1e", unsure: true},
	}
	for _, tt := range tests {
		got := readSedScript(tt.script)
		if (got.unsure != "") != tt.unsure || got.patternSpace != tt.pattern || !slices.Equal(got.commands, tt.commands) {
			t.Errorf("readSedScript(%q) = %+v, want commands %q, pattern space %v, unsure %v", tt.script, got, tt.commands, tt.pattern, tt.unsure)
		}
	}
}

// sedSandboxRefused is what GNU sed --sandbox says of a script with an e,
// r or w command.
const sedSandboxRefused = "e/r/w commands disabled in sandbox mode"

// FuzzReadSedScript reads generated sed scripts, which must never panic,
// and with GNU sed installed checks each reading that runs nothing
// against sed --sandbox: a script that sed refuses there for its e, r or
// w commands must have been read as running something, holding r or w,
// or not understood.
func FuzzReadSedScript(f *testing.F) {
	for _, s := range []string{
		"s/foo/bar/p", "1e touch p", "s/a/b/e", "/[/]/e", "y/a/b/;e", ":a;N;$!ba;s/\\n/ /g",
		"a\\\nfoo\\\ne echo E", "s/a/b/w f", "$!{e x\n}", "1~2!e", "bx;e\n:x", "s/[[:alpha:]/]/X/e",
		"1e echo \\\ntouch p", "1e\\\ntouch p", "1e\\touch p", "1e echo \\", "1e\\", "e\\x41", "a\\\n1e touch p",
		"i\\\n1e touch p", "c\\\n$e touch p", "1e echo \\\\\ntouch p",
	} {
		f.Add(s)
	}
	sed, err := exec.LookPath("sed")
	if err == nil && exec.Command(sed, "--sandbox", "-n", "p", os.DevNull).Run() != nil {
		sed = "" // not GNU sed
	}
	f.Fuzz(func(t *testing.T, script string) {
		got := readSedScript(script)
		if sed == "" || got.unsure != "" || got.patternSpace || len(got.commands) > 0 || got.files {
			return
		}
		if strings.IndexByte(script, 'e') < 0 {
			return // no e: nothing to run, whatever r or w it holds
		}
		if strings.IndexByte(script, 0) >= 0 {
			return // no argument holds a NUL
		}
		out, _ := exec.Command(sed, "--sandbox", "-n", "-e", script, os.DevNull).CombinedOutput()
		if strings.Contains(string(out), sedSandboxRefused) {
			t.Fatalf("%q read as running nothing, but sed --sandbox says: %s", script, out)
		}
	})
}
