//go:build linux

package linux

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gatedexec/gatedexec/sandbox"
)

// plainExec says how to run c without bash when c is bash -c SCRIPT and
// c.Plain holds SCRIPT's words (execpolicy.PlainCommand): bash would then
// do nothing but look the program up and execute it, and its start costs
// more than the rest of a sandboxed start on a slow host. It returns the
// program's path and the environment bash would give it, derived from
// env (the command's, after env_deny): PWD, SHLVL and _ set as bash sets
// them, and OLDPWD dropped unless it names a directory. ok is false, and
// c is run as it is, whenever bash could do otherwise or its doing is not
// reproduced exactly here:
//   - env holds a name bash reads at start or rewrites (its options,
//     BASH_ENV, exported functions, the variables it manages: see
//     bashManaged), a name twice, or a name that is not an identifier;
//   - PATH is unset, the program is not found as bash finds it, or only
//     through a relative PATH entry;
//   - the program is not an ELF file or a #! script (bash runs other
//     executable files as scripts itself), or cannot be read;
//   - the working directory is unknown, or is not the physical path
//     bash would set PWD to when PWD does not name it, or OLDPWD is
//     relative.
//
// A command that would fail to start is thus run by bash, whose message
// and exit status it then gets. The one difference left: bash's
// warnings at start (an unknown locale in LC_ALL) are not printed. What
// bash does is bash 5.2's, which the tests compare with the host's bash.
func plainExec(c *sandbox.Command, env []string) (path string, penv []string, ok bool) {
	if len(c.Plain) == 0 || c.Dir == "" || !filepath.IsAbs(c.Dir) {
		return "", nil, false
	}
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if _, dup := vars[name]; dup || !isIdentifier(name) || bashManaged(name) {
			return "", nil, false
		}
		vars[name] = value
	}
	pathEnv, set := vars["PATH"]
	if !set {
		return "", nil, false
	}
	path, under, ok := bashLookPath(c.Plain[0], c.Dir, pathEnv)
	if !ok || !execFormat(path) {
		return "", nil, false
	}
	pwd, ok := bashPWD(vars, c.Dir)
	if !ok {
		return "", nil, false
	}
	shlvl, ok := bashSHLVL(vars)
	if !ok {
		return "", nil, false
	}
	keepOld, ok := bashOLDPWD(vars)
	if !ok {
		return "", nil, false
	}
	penv = make([]string, 0, len(env)+3)
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "PWD", "SHLVL", "_":
		case "OLDPWD":
			if keepOld {
				penv = append(penv, kv)
			}
		default:
			penv = append(penv, kv)
		}
	}
	penv = append(penv, "PWD="+pwd, "SHLVL="+shlvl, "_="+under)
	return path, penv, true
}

// bashManaged reports the names bash reads at start or rewrites in the
// environment of what it runs (bash 5.2): BASH* (BASH_ENV, BASHOPTS,
// BASH_XTRACEFD, ...), its options and modes, the variables it keeps
// itself, the prompts it drops, EXECIGNORE (its PATH search) and ENV.
// PWD, SHLVL and OLDPWD are not among them: plainExec sets them as bash
// does.
func bashManaged(name string) bool {
	if strings.HasPrefix(name, "BASH") {
		return true
	}
	switch name {
	case "SHELLOPTS", "POSIXLY_CORRECT", "ENV", "EXECIGNORE", "IFS", "PS1", "PS2", "PS4",
		"LINENO", "OPTERR", "OPTIND", "PPID", "RANDOM", "SRANDOM", "HISTCMD",
		"EPOCHSECONDS", "EPOCHREALTIME", "COMP_WORDBREAKS", "SECONDS", "UID", "EUID", "GROUPS",
		"FUNCNAME", "DIRSTACK", "PIPESTATUS":
		return true
	}
	return false
}

// isIdentifier reports whether name is a shell identifier, which bash
// imports as a variable; bash passes other names on, but not every bash
// does.
func isIdentifier(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// bashLookPath finds name as bash does in pathEnv: a name with a slash is
// itself (relative to dir), any other the first executable regular file
// named so in a PATH entry. under is what bash sets _ to: the name as
// given, or the entry, a slash unless it ends with one, and the name. ok
// is false when bash would find nothing, or would search a relative
// entry (one searched before the program is found makes its result
// depend on the directory bash looks from).
func bashLookPath(name, dir, pathEnv string) (path, under string, ok bool) {
	if strings.Contains(name, "/") {
		path = name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		return path, name, executable(path)
	}
	for entry := range strings.SplitSeq(pathEnv, ":") {
		if !filepath.IsAbs(entry) {
			return "", "", false
		}
		p := entry + "/" + name
		if strings.HasSuffix(entry, "/") {
			p = entry + name
		}
		if executable(p) {
			return p, p, true
		}
	}
	return "", "", false
}

// executable reports whether path is a regular file this process may
// execute, bash's test for a command it found.
func executable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && syscall.Access(path, 1) == nil
}

// execFormat reports whether the file at path starts as an ELF program or
// a #! script, the formats the kernel executes for bash too; bash runs
// any other executable file as a bash script, in itself.
func execFormat(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false
	}
	return string(magic[:]) == "\x7fELF" || string(magic[:2]) == "#!"
}

// bashPWD is the PWD bash sets for the program: PWD as it is when it is
// absolute and names dir, otherwise the physical path of dir, which dir
// must be already (the command runs in dir as gatedexec sees it).
func bashPWD(vars map[string]string, dir string) (string, bool) {
	if pwd, ok := vars["PWD"]; ok && filepath.IsAbs(pwd) {
		a, aerr := os.Stat(pwd)
		b, berr := os.Stat(dir)
		if aerr == nil && berr == nil && os.SameFile(a, b) {
			return pwd, true
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || real != dir {
		return "", false
	}
	return dir, true
}

// bashOLDPWD says whether bash passes OLDPWD on: when it names a
// directory. ok is false for a relative one, which bash looks up from the
// directory it runs in.
func bashOLDPWD(vars map[string]string) (keep, ok bool) {
	v, set := vars["OLDPWD"]
	if !set {
		return false, true
	}
	if !filepath.IsAbs(v) {
		return false, false
	}
	st, err := os.Stat(v)
	return err == nil && st.IsDir(), true
}

// bashSHLVL is the SHLVL bash leaves to a program it executes as the
// whole of bash -c: unset becomes 0, a level from 0 to 998 written
// without sign, blank or leading zero stays. Other values bash rewrites
// by rules not reproduced here.
func bashSHLVL(vars map[string]string) (string, bool) {
	v, ok := vars["SHLVL"]
	if !ok {
		return "0", true
	}
	if v == "0" {
		return v, true
	}
	if len(v) == 0 || len(v) > 3 || v[0] == '0' || v == "999" {
		return "", false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return "", false
		}
	}
	return v, true
}
