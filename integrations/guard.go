package integrations

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/gate"
)

// EnvPrefix starts the names of the variables gatedexec reads.
const EnvPrefix = "GATEDEXEC_"

// SelfInvocation says why script, judged as chk, may not be run by an
// agent front end, or returns "" when it may. A script that runs
// gatedexec itself could choose its own rules, approver or session (a
// nested `gatedexec run --approver exec:true`), and one that names a
// GATEDEXEC_ variable could set them for a gatedexec it starts: the
// front end, not the model, says how a command is gated. The analysed
// commands are looked at, wrappers (env, sudo, xargs) unwrapped by the
// engine, so quoting does not hide the program; exe is this binary, so
// that a renamed copy or link is caught too.
//
// A variable is looked for in the text, which is cheap and catches a
// reference ($GATEDEXEC_X) too; in the text with its quote characters
// and backslashes dropped, which joins up a name quoting split
// (GATEDEX\EC_X, GATEDEX""EC_X) even where the engine could not parse
// the script; among the variables the engine found set, decoded as the
// shell decodes them (export $'\x47ATEDEXEC_X=1'); and in the decoded
// words of the commands, which hold the operands of wrappers the engine
// does not read as assignments (command export, run0 --setenv). A name
// with expansions in it is dynamic: the engine prompts for it, and the
// person asked reads the script.
func SelfInvocation(script string, chk *gate.CheckResult, exe string) string {
	if v := cmp.Or(variableIn(script), variableIn(unquoted(script))); v != "" {
		return "the command names " + v + ", " + ours
	}
	for _, v := range chk.Variables {
		if strings.HasPrefix(v, EnvPrefix) {
			return "the command sets " + v + ", " + ours
		}
	}
	self, _ := os.Stat(exe)
	for _, c := range chk.Commands {
		if len(c.Argv) == 0 {
			continue
		}
		for _, w := range c.Argv {
			if v := variableIn(w); v != "" {
				return "the command names " + v + ", " + ours
			}
		}
		progs := c.Argv[:1]
		if isLoader(filepath.Base(c.Argv[0])) {
			// ld.so PROGRAM runs PROGRAM: any word of its may be it.
			progs = c.Argv
		}
		for _, prog := range progs {
			if base := filepath.Base(prog); base == "gatedexec" || base == "gatedexec-mcp" || sameFile(prog, self) {
				return fmt.Sprintf("the command runs gatedexec itself (%s): the agent's commands are already gated, and may not choose how", prog)
			}
		}
	}
	return ""
}

// isLoader reports whether base names a dynamic loader run as a program
// (ld.so, ld-linux-x86-64.so.2, ld-musl-x86_64.so.1), which runs the
// program its arguments name.
func isLoader(base string) bool {
	return base == "ld.so" || strings.HasPrefix(base, "ld-linux") || strings.HasPrefix(base, "ld-musl")
}

// ours ends the reason of a denial for a variable gatedexec reads.
const ours = "a " + EnvPrefix + "* variable, which would change how gatedexec gates it"

// variableIn returns the first name starting with EnvPrefix in s, or "".
// The name is cut from s by its characters, so that a reason quoting it
// holds no text of the command's but a name.
func variableIn(s string) string {
	i := strings.Index(s, EnvPrefix)
	if i < 0 {
		return ""
	}
	j := i + len(EnvPrefix)
	for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
		j++
	}
	return s[i:j]
}

// unquoted is s without the characters that quote (' " \ $ and
// backslash-newline), for variableIn: it is no reading of s as a shell
// reads it, only a way to put back together a name they split.
func unquoted(s string) string {
	s = strings.ReplaceAll(s, "\\\n", "")
	return strings.Map(func(r rune) rune {
		if r == '\'' || r == '"' || r == '\\' || r == '$' {
			return -1
		}
		return r
	}, s)
}

// sameFile reports whether the program prog names the file self.
func sameFile(prog string, self os.FileInfo) bool {
	if self == nil {
		return false
	}
	path := prog
	if !strings.ContainsRune(prog, '/') {
		p, err := exec.LookPath(prog)
		if err != nil {
			return false
		}
		path = p
	}
	st, err := os.Stat(path)
	return err == nil && os.SameFile(st, self)
}
