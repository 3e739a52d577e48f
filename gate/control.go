package gate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/profiles"
)

// controlPaths lists gatedexec's own files for sandbox.WithControl: the
// system and user layers, the state directory (trust records, sessions),
// the rules and profile caches (an entry the command wrote would say what
// the next run's rules or profile are), this program and the gatedexec
// programs beside it (ownPrograms), the backend's own directories
// (hostOwnDirs) and extra (the rules files, the audit log). The
// workspace's .gatedexec is not among them: changing it revokes the
// workspace's trust, which only makes its rules stricter. A path that
// cannot be made absolute is an error, not one fewer protected file.
// scanCache is the scan cache directory among them (scanCacheDir), ""
// when caches are off.
func controlPaths(getenv func(string) string, d config.Dirs, extra ...string) (paths []string, scanCache string, err error) {
	own, err := ownPrograms()
	if err != nil {
		return nil, "", err
	}
	r := newResolver()
	scanCache = scanCacheDir(getenv, d, r)
	for _, p := range slices.Concat([]string{d.System, d.User, d.State, rulesCacheDir(getenv, d), profilesCacheDir(getenv, d), scanCache, d.Sessions()}, own, hostOwnDirs(), extra) {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, "", fmt.Errorf("control path %s: %w", p, err)
		}
		paths = append(paths, r.existing(abs))
	}
	if link := invokedLink(); link != "" {
		// As it is, not resolved: sandbox.WithControl pins a link.
		paths = append(paths, link)
	}
	return paths, scanCache, nil
}

// invokedLink returns the path this program was started by when that is
// a symbolic link to it (bin/gatedexec -> ../dist/gatedexec), else "":
// agent settings written by hand name that path, and a command that could
// replace the link would run a program of its own at the next hook call
// or server start. ownPrograms holds the program the link leads to.
func invokedLink() string {
	arg := os.Args[0]
	if !strings.ContainsRune(arg, '/') {
		p, err := exec.LookPath(arg)
		if err != nil {
			return ""
		}
		arg = p
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return ""
	}
	if fi, err := os.Lstat(abs); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return ""
	}
	return abs
}

// ownPrograms returns the program running and the gatedexec programs
// beside it that exist (gatedexec, gatedexec-mcp). An agent's hook and MCP
// settings name them, and the agent runs them outside any sandbox: a
// command that could rewrite one, kept in a workspace it may write
// (bin/gatedexec of a checkout), would run unsandboxed at the next hook or
// server start. The protect mounts also pin every directory between the
// workspace and the program, so that it cannot be moved aside with them.
// Not knowing this program is an error: it could not be protected.
func ownPrograms() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding gatedexec's own program: %w", err)
	}
	out := []string{exe}
	for _, name := range []string{"gatedexec", "gatedexec-mcp"} {
		if p := filepath.Join(filepath.Dir(exe), name); p != exe && existing(p) != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// existing returns path when something is there, else "". A result file
// not made yet is no control path: held by an empty directory it could not
// be written, and its write, by descriptor and rename, follows no link the
// command may put there.
func existing(path string) string {
	if path == "" {
		return ""
	}
	if _, err := os.Lstat(path); err != nil {
		return ""
	}
	return path
}

// profileFile returns nameOrFile when it names a profile file, else "".
func profileFile(nameOrFile string) string {
	if profiles.IsFile(nameOrFile) {
		return nameOrFile
	}
	return ""
}

// approverFiles returns the files an exec approver runs: its program and
// each argument naming a regular file (a script given to an interpreter),
// and the directory of each, where interpreters look for what the script
// imports first (Python's sys.path[0], Node's node_modules). They are
// control paths: a command that could rewrite its approver, or plant a
// module beside it, would approve its own next requests, as one that could
// append to the rules. What else the approver reads, gatedexec cannot know.
func approverFiles(a approval.Approver) []string {
	ea, ok := a.(*approval.ExecApprover)
	if !ok || len(ea.Argv) == 0 {
		return nil
	}
	var out []string
	if p, err := exec.LookPath(ea.Argv[0]); err == nil {
		out = append(out, p)
	} else if strings.ContainsRune(ea.Argv[0], '/') {
		// Missing now, it is still where the approver will be looked
		// for: a command that created it there would approve itself.
		out = append(out, ea.Argv[0])
	}
	for _, arg := range ea.Argv[1:] {
		if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
			out = append(out, arg)
		}
	}
	for _, f := range slices.Clone(out) {
		out = append(out, filepath.Dir(f))
	}
	return out
}
