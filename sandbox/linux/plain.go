//go:build linux

package linux

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gatedexec/gatedexec/sandbox"
)

// plainExec says how to run c without bash when c is bash -c SCRIPT and
// c.Plain holds SCRIPT's words (execpolicy.PlainCommand): bash would then
// do nothing but look the program up and execute it, and its start costs
// more than the rest of a sandboxed start on a slow host. It returns the
// program's path, as bash would pass it to execve (relative to c.Dir for
// a relative name), the environment bash would give it, derived from env
// (the command's, after env_deny): PWD, SHLVL and _ set as bash sets
// them, and OLDPWD dropped unless it names a directory; and the bash the
// helper executes SCRIPT with when the program's exec fails after all (a
// file changed since, an exec Landlock refuses), so that the command gets
// bash's message, status and denial. Files are judged as the command will
// see them in its sandbox (commandView), not as gatedexec sees them. ok
// is false, and c is run as it is, whenever bash could do otherwise or
// its doing is not known here:
//   - the profile is unrestricted (its command may start without the
//     helper, which alone can fall back to bash), or may keep bash from
//     starting where the program starts (bashStarts);
//   - bash would run its rc files first (bashReadsRC);
//   - env holds a name bash reads at start or rewrites (its options,
//     BASH_ENV, exported functions, the variables it manages: see
//     bashManaged), a name twice, or a name that is not an identifier;
//   - bash itself is not an ELF program in PATH the command may execute
//     (a wrapper script named bash runs);
//   - a file bash would look at for the program is in a relative PATH
//     entry, lies where the sandbox shows otherwise (a private /tmp, a
//     hidden path, /proc, /dev: on the way to it included), or may or may
//     not be executable for root without capabilities;
//   - the program is neither an ELF file nor a #! script whose
//     interpreter is an ELF file (bash runs other executable files as
//     scripts itself, also after the kernel refuses a #! line);
//   - the working directory is unknown, or is not the physical path
//     bash would set PWD to when PWD does not name it, or PWD or OLDPWD
//     leads where the sandbox shows otherwise, or OLDPWD is relative. An
//     OLDPWD in a private tmp directory that the run shows nothing of
//     there (privateTmpAbsent) names no directory for bash, which then
//     passes none on: plainExec drops it likewise.
//
// Two differences are left: bash's warnings at start (an unknown locale
// in LC_ALL) are not printed, and the environment keeps the caller's order
// (PWD, SHLVL and _ last) where bash's follows its own table; the entries
// are the same. What bash does is bash 5.2's, which the tests compare with
// the host's bash.
//
// privateTmp says whether the run gives the profile's private tmp
// directories (its mount namespace layer): without, the command sees the
// host's.
func plainExec(c *sandbox.Command, env []string, privateTmp bool) (plainRun, bool) {
	if len(c.Plain) == 0 || c.Dir == "" || !filepath.IsAbs(c.Dir) || c.Profile != nil && c.Profile.Unrestricted {
		return plainRun{}, false
	}
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		// A name that is not an identifier bash passes on, but not
		// every bash does.
		if _, dup := vars[name]; dup || !syntax.ValidName(name) || bashManaged(name) {
			return plainRun{}, false
		}
		vars[name] = value
	}
	pathEnv, set := vars["PATH"]
	if !set || bashReadsRC(vars, c.Stdin) || !bashStarts(c) {
		return plainRun{}, false
	}
	v := newCommandView(c.Profile, privateTmp)
	bash, err := sandbox.LookPath("bash", c.Dir, env)
	// bashStarts has made sure the profile's Landlock rules read the
	// whole tree: bash may execute wherever it is.
	if err != nil || v.canExec(bash) != yes || fileMagic(bash) != magicELF {
		return plainRun{}, false
	}
	path, under, ok := v.lookPath(c.Plain[0], c.Dir, pathEnv)
	if !ok || !v.executes(absIn(c.Dir, path)) {
		return plainRun{}, false
	}
	pwd, ok := v.bashPWD(vars, c.Dir)
	if !ok {
		return plainRun{}, false
	}
	shlvl, ok := bashSHLVL(vars)
	if !ok {
		return plainRun{}, false
	}
	keepOld, ok := v.bashOLDPWD(vars, filepath.Clean(c.Dir), path)
	if !ok {
		return plainRun{}, false
	}
	penv := make([]string, 0, len(env)+3)
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
	return plainRun{path: path, env: penv, bash: bash}, true
}

// plainRun is how plainExec runs a plain command.
type plainRun struct {
	// path is the program as bash names it to execve, env its
	// environment.
	path string
	env  []string
	// bash is the bash the command would have run under: the helper
	// executes bash -c SCRIPT with it when path's exec fails (a file
	// changed since it was looked at, an exec Landlock refuses), so that
	// the command gets bash's message, status and denial.
	bash string
}

// absIn is path as the kernel resolves it from dir: joined, not cleaned
// (sub/../x goes through sub, which may be a link).
func absIn(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return strings.TrimSuffix(dir, "/") + "/" + path
}

// bashReadsRC reports whether bash -c would run /etc/bash.bashrc and
// ~/.bashrc first: as a top-level shell (SHLVL unset or 0) that thinks sshd
// or rshd started it (SSH_CLIENT or SSH2_CLIENT set, as Debian builds
// bash, or its stdin a socket, as a Node parent's often is).
func bashReadsRC(vars map[string]string, stdin io.Reader) bool {
	if lvl, set := vars["SHLVL"]; set && lvl != "0" {
		return false
	}
	if _, ok := vars["SSH_CLIENT"]; ok {
		return true
	}
	if _, ok := vars["SSH2_CLIENT"]; ok {
		return true
	}
	f, ok := stdin.(*os.File)
	if !ok {
		return false // a pipe, or /dev/null
	}
	st, err := f.Stat()
	return err != nil || st.Mode()&os.ModeSocket != 0
}

// maxArgStrlen is the kernel's limit on one argument or environment
// string (MAX_ARG_STRLEN, 32 pages).
const maxArgStrlen = 32 * 4096

// bashStarts reports whether bash would get to run c's script at all as
// far as c's profile and argv say: a profile that reads only some of the
// tree, hides a system directory or bounds address space or descriptors
// may keep bash (its loader, its libraries) from starting where a static
// program starts; and the kernel refuses a script longer than one
// argument may be, while its words fit.
func bashStarts(c *sandbox.Command) bool {
	for _, a := range c.Argv {
		if len(a) >= maxArgStrlen {
			return false
		}
	}
	p := c.Profile
	if p == nil {
		return true
	}
	if !p.ReadAll || p.Limits.AS != 0 || p.Limits.NoFile != 0 {
		return false
	}
	system := []string{"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/bin", "/sbin"}
	for _, h := range p.Hide {
		if sandbox.Under(h, system) || slices.ContainsFunc(system, func(d string) bool { return sandbox.Under(d, []string{h}) }) {
			return false
		}
	}
	return true
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

// commandView is how the sandboxed command will see files, as far as
// plainExec needs to know: which paths its sandbox shows otherwise than
// the host, and whether it runs as root without capabilities, for whom
// only the mode bits of files root owns say what it may do.
type commandView struct {
	profile *sandbox.Profile // nil: the host's view (tests)
	capless bool
	// privateTmp: the profile's private tmp directories are given.
	privateTmp bool
}

// newCommandView is the view of a command run under p by this process,
// with p's private tmp directories when privateTmp.
func newCommandView(p *sandbox.Profile, privateTmp bool) commandView {
	// A restricted command holds no capability, also as root.
	restricted := p != nil && !p.Unrestricted
	return commandView{profile: p, capless: os.Geteuid() == 0 && restricted, privateTmp: privateTmp && restricted}
}

// privateTmpAbsent reports whether path, absolute and clean, names
// nothing for a command run in dir with program as the view's profile:
// it lies in one of the profile's private tmp directories, which the run
// makes an empty tmpfs holding only what it keeps of the host's there
// (keepPaths, with the directories the run keeps visible for dir and
// program) and the directories on the way to those, and it is none of
// them, below none and on the way to none. Its host's tree says nothing
// then: the command does not see it.
func (v commandView) privateTmpAbsent(path, dir, program string) bool {
	p := v.profile
	if !v.privateTmp || !filepath.IsAbs(path) || filepath.Clean(path) != path ||
		!slices.ContainsFunc(p.PrivateTmp, func(t string) bool { return path != t && within(path, t) }) {
		return false
	}
	for _, k := range keepPaths(withVisible(p, privateTmpVisible(p, dir, program))) {
		if within(path, k) || within(k, path) {
			return false
		}
	}
	return true
}

// differs reports whether the command may see path otherwise than this
// process does.
func (v commandView) differs(path string) bool {
	return v.profile != nil && v.profile.ViewDiffers(path)
}

// leadsToKept reports whether dir is on the way to a path the sandbox
// keeps as the host's below a directory it shows otherwise (the workspace
// in a private /tmp): the command goes through it to the same place, and
// the next step is judged on its own.
func (v commandView) leadsToKept(dir string) bool {
	if v.profile == nil {
		return false
	}
	for _, k := range v.profile.KeptRoots() {
		if k != dir && sandbox.Under(k, []string{dir}) {
			return true
		}
	}
	return false
}

// lookPath finds name as bash does in pathEnv: a name with a slash is
// itself, any other the first executable regular file named so in a PATH
// entry. under is what bash sets _ to: the name as given, or the entry, a
// slash unless it ends with one, and the name. ok is false when bash
// would find nothing, or when a candidate bash would look at is in a
// relative entry (its result depends on the directory bash looks from),
// lies where the sandbox shows otherwise, or may or may not be executable
// for the command.
func (v commandView) lookPath(name, dir, pathEnv string) (path, under string, ok bool) {
	if strings.Contains(name, "/") {
		return name, name, v.canExec(absIn(dir, name)) == yes
	}
	for entry := range strings.SplitSeq(pathEnv, ":") {
		if !filepath.IsAbs(entry) {
			return "", "", false
		}
		p := entry + "/" + name
		if strings.HasSuffix(entry, "/") {
			p = entry + name
		}
		switch v.canExec(p) {
		case yes:
			return p, p, true
		case unknown:
			return "", "", false
		}
	}
	return "", "", false
}

// answer is what commandView can say of a question about the command.
type answer int

const (
	no answer = iota
	yes
	unknown
)

// maxLinks is how many symbolic links the kernel follows in one lookup.
const maxLinks = 40

// resolve follows path (absolute) as the kernel does, one component at a
// time, through links, and returns where it leads. found is yes when it
// leads to something, no when it leads nowhere (for anyone: a missing
// component, a file where a directory should be, too many links), and
// unknown when it passes through a place the sandbox shows otherwise, a
// link's target included, or through a directory root without
// capabilities may or may not search.
func (v commandView) resolve(path string) (real string, found answer) {
	if !filepath.IsAbs(path) {
		return "", unknown
	}
	cur, rest, links := "/", path, 0
	for {
		var comp string
		comp, rest, _ = strings.Cut(strings.TrimLeft(rest, "/"), "/")
		switch comp {
		case "":
			return cur, yes
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, comp)
		if v.differs(next) && (strings.Trim(rest, "/") == "" || !v.leadsToKept(next)) {
			return "", unknown
		}
		st, err := os.Lstat(next)
		if err != nil {
			return "", no
		}
		if st.Mode()&os.ModeSymlink != 0 {
			if links++; links > maxLinks {
				return "", no
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", unknown
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = target + "/" + rest
			continue
		}
		if strings.Trim(rest, "/") != "" {
			if !st.IsDir() {
				return "", no
			}
			if v.capless && !rootOwnedWith(st, 0o100) {
				return "", unknown
			}
		}
		cur = next
	}
}

// canExec says whether path is a regular file the command may execute,
// bash's test for a command it found (eaccess X_OK). Root without
// capabilities may when root owns the file and every directory on the way
// with their owner's execute or search bit; it cannot when no one may
// execute the file; anything else (another owner, a group, an ACL) is
// unknown here.
func (v commandView) canExec(path string) answer {
	if strings.HasSuffix(path, "/") {
		return no // the kernel wants a directory there
	}
	real, found := v.resolve(path)
	if found != yes {
		return found
	}
	st, err := os.Stat(real)
	switch {
	case err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0:
		return no
	case !v.capless:
		if syscall.Access(path, 1) != nil {
			return no
		}
		return yes
	case rootOwnedWith(st, 0o100):
		return yes
	}
	return unknown
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
		return filepath.IsAbs(interp) && v.canExec(interp) == yes && fileMagic(interp) == magicELF
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
		if pwd == dir {
			return pwd, true
		}
		a, aerr := os.Stat(pwd)
		b, berr := os.Stat(dir)
		if aerr == nil && berr == nil && os.SameFile(a, b) {
			// Naming dir here, it names dir there too unless the way
			// to it is shown otherwise. Not naming it here, it does
			// not there: the sandbox only takes files away.
			if _, found := v.resolve(pwd); found == unknown {
				return "", false
			}
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
func (v commandView) bashOLDPWD(vars map[string]string, dir, program string) (keep, ok bool) {
	old, set := vars["OLDPWD"]
	if !set {
		return false, true
	}
	if !filepath.IsAbs(old) {
		return false, false
	}
	if v.privateTmpAbsent(old, dir, program) {
		// Left behind in the host's /tmp by the shell that started
		// the agent: common, and not worth bash's start each call.
		return false, true
	}
	real, found := v.resolve(old)
	switch found {
	case no:
		return false, true
	case unknown:
		return false, false
	}
	st, err := os.Stat(real)
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
