package integrations

import (
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
func SelfInvocation(script string, chk *gate.CheckResult, exe string) string {
	if strings.Contains(script, EnvPrefix) {
		return "the command names a " + EnvPrefix + "* variable, which would change how gatedexec gates it"
	}
	self, _ := os.Stat(exe)
	for _, c := range chk.Commands {
		if len(c.Argv) == 0 {
			continue
		}
		prog := c.Argv[0]
		if base := filepath.Base(prog); base == "gatedexec" || base == "gatedexec-mcp" || sameFile(prog, self) {
			return fmt.Sprintf("the command runs gatedexec itself (%s): the agent's commands are already gated, and may not choose how", prog)
		}
	}
	return ""
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
