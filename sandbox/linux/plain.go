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
// program's path, as bash would pass it to execve (relative to c.Dir for
// a relative name), and the environment bash would give it, derived from
// env (the command's, after env_deny): PWD, SHLVL and _ set as bash sets
// them, and OLDPWD dropped unless it names a directory. Files are judged
// as the command will see them in its sandbox (commandView), not as
// gatedexec sees them. ok is false, and c is run as it is, whenever bash
// could do otherwise or its doing is not reproduced exactly here:
//   - env holds a name bash reads at start or rewrites (its options,
//     BASH_ENV, exported functions, the variables it manages: see
//     bashManaged), a name twice, or a name that is not an identifier;
//   - bash itself is not found in PATH as an ELF program (a wrapper
//     script named bash runs);
//   - the program is not found as bash finds it, or a PATH entry that
//     decides it is relative or shown otherwise in the sandbox;
//   - the program is neither an ELF file nor a #! script whose
//     interpreter is an ELF file (bash runs other executable files as
//     scripts itself, also after the kernel refuses a #! line);
//   - the working directory is unknown, or is not the physical path
//     bash would set PWD to when PWD does not name it, or PWD or OLDPWD
//     names a place the sandbox shows otherwise, or OLDPWD is relative.
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
	if bash, err := sandbox.LookPath("bash", c.Dir, env); err != nil || fileMagic(bash) != magicELF {
		return "", nil, false
	}
	v := newCommandView(c.Profile)
	path, under, ok := v.lookPath(c.Plain[0], c.Dir, pathEnv)
	if !ok || !v.executes(absIn(c.Dir, path)) {
		return "", nil, false
	}
	pwd, ok := v.bashPWD(vars, c.Dir)
	if !ok {
		return "", nil, false
	}
	shlvl, ok := bashSHLVL(vars)
	if !ok {
		return "", nil, false
	}
	keepOld, ok := v.bashOLDPWD(vars)
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

// absIn is path as the kernel resolves it from dir: joined, not cleaned
// (sub/../x goes through sub, which may be a link).
func absIn(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return strings.TrimSuffix(dir, "/") + "/" + path
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

// commandView is how the sandboxed command will see files, as far as
// plainExec needs to know: which paths its sandbox shows otherwise than
// the host, and whether it runs as root without capabilities, for whom
// only the mode bits of files root owns say what it may do.
type commandView struct {
	profile *sandbox.Profile // nil: the host's view (tests)
	capless bool
}

// newCommandView is the view of a command run under p by this process.
func newCommandView(p *sandbox.Profile) commandView {
	// A restricted command holds no capability, also as root.
	return commandView{profile: p, capless: os.Geteuid() == 0 && p != nil && !p.Unrestricted}
}

// differs reports whether the command may see path otherwise than this
// process does.
func (v commandView) differs(path string) bool {
	return v.profile != nil && v.profile.ViewDiffers(path)
}

// lookPath finds name as bash does in pathEnv: a name with a slash is
// itself, any other the first executable regular file named so in a PATH
// entry. under is what bash sets _ to: the name as given, or the entry, a
// slash unless it ends with one, and the name. ok is false when bash
// would find nothing, or when an entry searched is relative (its result
// depends on the directory bash looks from) or holds a file named so in a
// place the sandbox shows otherwise.
func (v commandView) lookPath(name, dir, pathEnv string) (path, under string, ok bool) {
	if strings.Contains(name, "/") {
		return name, name, v.canExec(absIn(dir, name))
	}
	for entry := range strings.SplitSeq(pathEnv, ":") {
		if !filepath.IsAbs(entry) {
			return "", "", false
		}
		p := entry + "/" + name
		if strings.HasSuffix(entry, "/") {
			p = entry + name
		}
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		real, seen := v.resolve(p)
		if !seen {
			return "", "", false
		}
		if v.canExecResolved(p, real) {
			return p, p, true
		}
	}
	return "", "", false
}

// resolve returns what path links to, and whether the command sees path
// and it where this process does.
func (v commandView) resolve(path string) (real string, seen bool) {
	real, err := filepath.EvalSymlinks(path)
	return real, err == nil && !v.differs(path) && !v.differs(real)
}

// canExec reports whether path is a regular file the command may execute,
// bash's test for a command it found (eaccess X_OK), where this process
// sees it too.
func (v commandView) canExec(path string) bool {
	real, seen := v.resolve(path)
	return seen && v.canExecResolved(path, real)
}

// canExecResolved is canExec of path, which links to real. Root without
// capabilities may execute a file when root owns it and every directory
// on the way to it with their owner's search or execute bit; anything
// else root cannot tell here (another owner's group, an ACL) counts as
// not.
func (v commandView) canExecResolved(path, real string) bool {
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if !v.capless {
		return syscall.Access(path, 1) == nil
	}
	for _, p := range []string{real, filepath.Dir(path)} {
		for ; ; p = filepath.Dir(p) {
			if st, err := os.Stat(p); err != nil || !rootOwnedWith(st, 0o100) {
				return false
			}
			if p == "/" || p == "." {
				break
			}
		}
	}
	return true
}

// rootOwnedWith reports whether st is owned by root with the owner's
// permission bits perm.
func rootOwnedWith(st os.FileInfo, perm os.FileMode) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Uid == 0 && st.Mode().Perm()&perm == perm
}

// The formats fileMagic tells apart.
const (
	magicOther = iota
	magicELF
	magicScript // #! and an interpreter named on a whole first line
)

// fileMagic classes the file at path by its first bytes, as the kernel
// reads them to execute it (BINPRM_BUF_SIZE, 256).
func fileMagic(path string) int {
	_, kind := readMagic(path)
	return kind
}

// readMagic returns the interpreter of a #! script at path with
// magicScript, or the class of the file.
func readMagic(path string) (interp string, kind int) {
	f, err := os.Open(path)
	if err != nil {
		return "", magicOther
	}
	defer f.Close()
	var buf [256]byte
	n, _ := io.ReadFull(f, buf[:])
	head := buf[:n]
	switch {
	case len(head) >= 4 && string(head[:4]) == "\x7fELF":
		return "", magicELF
	case len(head) >= 2 && string(head[:2]) == "#!":
		line, _, whole := strings.Cut(string(head[2:]), "\n")
		if !whole {
			return "", magicOther
		}
		interp, _, _ = strings.Cut(strings.TrimLeft(line, " \t"), " ")
		interp, _, _ = strings.Cut(interp, "\t")
		return interp, magicScript
	}
	return "", magicOther
}

// executes reports whether the kernel executes the file at path for bash
// without bash running it itself: an ELF program, or a #! script whose
// interpreter, named by an absolute path, is an ELF program the command
// may execute.
func (v commandView) executes(path string) bool {
	interp, kind := readMagic(path)
	switch kind {
	case magicELF:
		return true
	case magicScript:
		return filepath.IsAbs(interp) && v.canExec(interp) && fileMagic(interp) == magicELF
	}
	return false
}

// bashPWD is the PWD bash sets for the program: PWD as it is when it is
// absolute and names dir, otherwise the physical path of dir, which dir
// must be already (the command runs in dir as gatedexec sees it: the
// sandbox keeps its working directory). ok is false for a PWD in a place
// the sandbox shows otherwise.
func (v commandView) bashPWD(vars map[string]string, dir string) (string, bool) {
	if pwd, ok := vars["PWD"]; ok && filepath.IsAbs(pwd) {
		if pwd != dir && v.differs(pwd) {
			return "", false
		}
		// Naming dir here, through links or not, it names dir there.
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
// directory it runs in, and for one the sandbox may show otherwise.
func (v commandView) bashOLDPWD(vars map[string]string) (keep, ok bool) {
	old, set := vars["OLDPWD"]
	if !set {
		return false, true
	}
	if !filepath.IsAbs(old) {
		return false, false
	}
	st, err := os.Stat(old)
	if err != nil {
		// Missing here: missing there too, unless the sandbox shows
		// its place otherwise.
		return false, !v.differs(old)
	}
	if _, seen := v.resolve(old); !seen {
		return false, false
	}
	return st.IsDir(), true
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
