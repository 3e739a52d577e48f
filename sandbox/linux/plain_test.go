//go:build linux

package linux

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

// bashVariables are the variables bash's manual names (bash 5.2, "Shell
// Variables"), each of which a command's environment may hold.
var bashVariables = strings.Fields(`BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_CMDS
BASH_COMMAND BASH_EXECUTION_STRING BASH_LINENO BASH_LOADABLES_PATH BASH_REMATCH BASH_SOURCE BASH_SUBSHELL
BASH_VERSINFO BASH_VERSION COMP_CWORD COMP_KEY COMP_LINE COMP_POINT COMP_TYPE COMP_WORDBREAKS COMP_WORDS COPROC
DIRSTACK EPOCHREALTIME EPOCHSECONDS EUID FUNCNAME GROUPS HISTCMD HOSTNAME HOSTTYPE LINENO MACHTYPE MAPFILE OLDPWD
OPTARG OPTIND OSTYPE PIPESTATUS PPID PWD RANDOM READLINE_ARGUMENT READLINE_LINE READLINE_MARK READLINE_POINT REPLY
SECONDS SHELLOPTS SHLVL SRANDOM UID BASH_COMPAT BASH_ENV BASH_XTRACEFD CDPATH CHILD_MAX COLUMNS COMPREPLY EMACS ENV
EXECIGNORE FCEDIT FIGNORE FUNCNEST GLOBIGNORE HISTCONTROL HISTFILE HISTFILESIZE HISTIGNORE HISTSIZE HISTTIMEFORMAT
HOME HOSTFILE IFS IGNOREEOF INPUTRC INSIDE_EMACS LANG LC_ALL LC_COLLATE LC_CTYPE LC_MESSAGES LC_NUMERIC LC_TIME
LINES MAIL MAILCHECK MAILPATH OPTERR PATH POSIXLY_CORRECT PROMPT_COMMAND PROMPT_DIRTRIM PS0 PS1 PS2 PS3 PS4 SHELL
TIMEFORMAT TMOUT TMPDIR auto_resume histchars TERM USER`)

// bashEnv is the environment bash -c gives the program of script when
// started with env in dir: what the program env prints.
func bashEnv(t *testing.T, bash, dir, script string, env []string) []string {
	t.Helper()
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash -c %q with %q: %v", script, env, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	slices.Sort(got)
	return got
}

// TestPlainExecMatchesBash is an oracle: wherever plainExec runs a plain
// command without bash, the program and its environment are those bash
// -c gives it, here printed by env itself (bash is the host's, 5.2 on
// the machines gatedexec is tested on). Every variable bash's manual
// names is tried, alone and in the places PWD, OLDPWD and SHLVL take.
func TestPlainExecMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is not installed")
	}
	envPath, err := exec.LookPath("env")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sub, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	envDir := filepath.Dir(envPath)
	base := []string{"PATH=" + envDir + ":/usr/bin:/bin", "HOME=/root", "TERM=dumb"}
	envs := [][]string{
		base,
		append(slices.Clone(base), "PWD="+sub),
		append(slices.Clone(base), "PWD="+filepath.Join(dir, "link")),
		append(slices.Clone(base), "PWD="+sub+"/"),
		append(slices.Clone(base), "PWD="+dir),
		append(slices.Clone(base), "PWD=/nonexistent"),
		append(slices.Clone(base), "PWD=relative"),
		append(slices.Clone(base), "OLDPWD="+dir),
		append(slices.Clone(base), "OLDPWD=/nonexistent"),
		append(slices.Clone(base), "OLDPWD="+envPath),
		append(slices.Clone(base), "OLDPWD="),
		append(slices.Clone(base), "_=/x"),
		[]string{"PATH=" + envDir + "/", "X=1"},
		[]string{"PATH=/nonexistent:" + envDir, "X=1"},
		[]string{"PATH=/nonexistent//:" + envDir + "//"},
	}
	for _, v := range []string{"", "0", "1", "3", "007", "998", "999", "1000", "-1", " 4", "x"} {
		envs = append(envs, append(slices.Clone(base), "SHLVL="+v))
	}
	// Every variable, for the program found in PATH.
	var each [][]string
	for _, name := range bashVariables {
		for _, v := range []string{"7", "a b", dir, ""} {
			each = append(each, append(slices.Clone(base), name+"="+v))
		}
	}
	ran := 0
	for _, script := range []string{"env", envPath, "./env"} {
		envs := envs
		if script == "env" {
			envs = append(slices.Clip(envs), each...)
		}
		scriptDir := sub
		if script == "./env" {
			// A relative path, from a directory holding a copy.
			scriptDir = t.TempDir()
			data, err := os.ReadFile(envPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(scriptDir, "env"), data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, env := range envs {
			c := &sandbox.Command{Argv: []string{"bash", "-c", script}, Plain: []string{script}, Dir: scriptDir}
			pr, ok := plainExec(c, env, true)
			if !ok {
				continue
			}
			path, penv := pr.path, pr.env
			ran++
			want := bashEnv(t, bash, scriptDir, script, env)
			slices.Sort(penv)
			if !slices.Equal(penv, want) {
				t.Errorf("%q with %q: plainExec's environment\n%q\nbash's\n%q", script, env, penv, want)
			}
			// The program is the one bash runs, named as bash names it
			// to execve: _ (compared above) says which.
			under := ""
			for _, kv := range penv {
				if v, ok := strings.CutPrefix(kv, "_="); ok {
					under = v
				}
			}
			if path != under {
				t.Errorf("%q with %q: plainExec runs %s, bash %s", script, env, path, under)
			}
		}
	}
	if ran < 250 {
		t.Fatalf("plainExec ran only %d of the cases without bash", ran)
	}
}

// TestPlainExecFallsBack lists what plainExec leaves to bash.
func TestPlainExecFallsBack(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "noshebang")
	if err := os.WriteFile(script, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	shebang := filepath.Join(dir, "shebang")
	if err := os.WriteFile(shebang, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(dir, "notexec")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := "PATH=/usr/bin:/bin"
	tests := []struct {
		name  string
		plain []string
		dir   string
		env   []string
		ok    bool
	}{
		{"plain", []string{"ls"}, dir, []string{path}, true},
		{"a #! script", []string{shebang}, dir, []string{path}, true},
		{"no plain words", nil, dir, []string{path}, false},
		{"no directory", []string{"ls"}, "", []string{path}, false},
		{"relative directory", []string{"ls"}, "sub", []string{path}, false},
		{"BASH_ENV", []string{"ls"}, dir, []string{path, "BASH_ENV=/tmp/x"}, false},
		{"an exported function", []string{"ls"}, dir, []string{path, "BASH_FUNC_ls%%=() { id; }"}, false},
		{"SHELLOPTS", []string{"ls"}, dir, []string{path, "SHELLOPTS=xtrace"}, false},
		{"POSIXLY_CORRECT", []string{"ls"}, dir, []string{path, "POSIXLY_CORRECT=1"}, false},
		{"EXECIGNORE", []string{"ls"}, dir, []string{path, "EXECIGNORE=*"}, false},
		{"a name twice", []string{"ls"}, dir, []string{path, "X=1", "X=2"}, false},
		{"PATH twice", []string{"ls"}, dir, []string{path, "PATH=/bin"}, false},
		{"a name bash may drop", []string{"ls"}, dir, []string{path, "A-B=1"}, false},
		{"no PATH", []string{"ls"}, dir, []string{"X=1"}, false},
		{"a relative PATH entry first", []string{"ls"}, dir, []string{"PATH=bin:/usr/bin:/bin"}, false},
		{"an empty PATH entry first", []string{"ls"}, dir, []string{"PATH=:/usr/bin:/bin"}, false},
		{"not found", []string{"no-such-program-gatedexec"}, dir, []string{path}, false},
		{"not executable", []string{notExec}, dir, []string{path}, false},
		{"neither ELF nor #!", []string{script}, dir, []string{path}, false},
		{"a directory", []string{dir}, dir, []string{path}, false},
		{"a relative OLDPWD", []string{"ls"}, dir, []string{path, "OLDPWD=sub"}, false},
		{"an SHLVL bash rewrites", []string{"ls"}, dir, []string{path, "SHLVL=1000"}, false},
	}
	for _, tt := range tests {
		c := &sandbox.Command{Argv: []string{"bash", "-c", strings.Join(tt.plain, " ")}, Plain: tt.plain, Dir: tt.dir}
		if _, ok := plainExec(c, tt.env, true); ok != tt.ok {
			t.Errorf("%s: plainExec ok = %v, want %v", tt.name, ok, tt.ok)
		}
	}
}

// TestPlainExecSandboxView: plainExec judges files as the sandboxed
// command sees them, and names a relative program as bash does, for the
// kernel to resolve from the working directory.
func TestPlainExecSandboxView(t *testing.T) {
	root := t.TempDir()
	exe, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string, data []byte, mode os.FileMode) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ws := filepath.Join(root, "ws")
	other := filepath.Join(root, "other")
	write(filepath.Join(other, "tool"), exe, 0o755)
	write(filepath.Join(other, "sub", "keep"), nil, 0o644)
	write(filepath.Join(ws, "wstool"), exe, 0o755)
	if err := os.Symlink(filepath.Join(other, "sub"), filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(root, "tmp")
	write(filepath.Join(private, "hostbin", "ls"), exe, 0o755)
	hidden := filepath.Join(root, "hidden")
	write(filepath.Join(hidden, "bin", "ls"), exe, 0o755)
	write(filepath.Join(ws, "badinterp"), []byte("#!"+filepath.Join(ws, "notelf")+"\n"), 0o755)
	write(filepath.Join(ws, "notelf"), []byte("echo hi\n"), 0o755)
	write(filepath.Join(ws, "longline"), []byte("#!/bin/sh "+strings.Repeat("x", 300)+"\n"), 0o755)
	fakeBashDir := filepath.Join(root, "fakebash")
	write(filepath.Join(fakeBashDir, "bash"), []byte("#!/bin/sh\nexec /bin/bash \"$@\"\n"), 0o755)
	prof := &sandbox.Profile{Name: "test", ReadAll: true, PrivateTmp: []string{private}, Hide: []string{hidden}}
	sys := "PATH=/usr/bin:/bin"

	tests := []struct {
		name     string
		word     string
		env      []string
		wantPath string // "": bash runs it
	}{
		{"a relative name stays as written", "./wstool", []string{sys}, "./wstool"},
		// The kernel goes through the link: other/tool, not ws/tool.
		{"a relative name through a link", "sub/../tool", []string{sys}, "sub/../tool"},
		{"a relative name the kernel does not find", "sub/../wstool", []string{sys}, ""},
		{"a trailing slash", "./wstool/", []string{sys}, ""},
		{"a program in the private tmp", filepath.Join(private, "hostbin", "ls"), []string{sys}, ""},
		{"a PATH entry in the private tmp holding it", "ls", []string{"PATH=" + filepath.Join(private, "hostbin") + ":/usr/bin:/bin"}, ""},
		// What the sandbox shows there is not known here, even where
		// the host has nothing.
		{"a PATH entry in the private tmp without it", "ls", []string{"PATH=" + filepath.Join(private, "nobin") + ":/usr/bin:/bin"}, ""},
		{"a PATH entry through a link into /proc", "ls", []string{"PATH=" + filepath.Join(ws, "proclink") + ":/usr/bin:/bin"}, ""},
		{"a PATH entry spelled through a hidden path", "ls", []string{"PATH=" + hidden + "/bin/../../other:/usr/bin:/bin"}, ""},
		{"bash where the profile reads nothing", "./wstool", []string{sys}, ""},
		// A workspace in the private tmp is kept: the way to it is the
		// host's, what lies beside it is not.
		{"a workspace in the private tmp", "./tool", []string{sys}, "./tool"},
		{"beside a workspace in the private tmp", filepath.Join(private, "beside", "tool"), []string{sys}, ""},
		{"a PATH entry under a hidden path", "ls", []string{"PATH=" + filepath.Join(hidden, "bin") + ":/usr/bin:/bin"}, ""},
		{"a #! interpreter that is not ELF", "./badinterp", []string{sys}, ""},
		{"a #! line longer than the kernel reads", "./longline", []string{sys}, ""},
		{"no bash in PATH", "./wstool", []string{"PATH=" + filepath.Join(root, "nobash")}, ""},
		{"a bash that is a script", "./wstool", []string{"PATH=" + fakeBashDir + ":/usr/bin:/bin"}, ""},
		{"OLDPWD in the private tmp", "./wstool", []string{sys, "OLDPWD=" + private}, ""},
		// Not naming the directory here, PWD names nothing there: bash
		// sets it, as plainExec does.
		{"PWD in the private tmp, elsewhere", "./wstool", []string{sys, "PWD=" + filepath.Join(private, "hostbin")}, "./wstool"},
		// Naming it here through a link the sandbox hides: bash resets it.
		{"PWD in the private tmp, a link to it", "./wstool", []string{sys, "PWD=" + filepath.Join(private, "wslink")}, ""},
		{"a PATH entry under a protected path", "ls", []string{"PATH=" + filepath.Join(ws, ".git", "bin") + ":/usr/bin:/bin"}, ""},
		{"bash's libraries hidden", "./wstool", []string{sys}, ""},
		{"an address space limit", "./wstool", []string{sys}, ""},
		{"a socket for stdin at SHLVL 0", "./wstool", []string{sys, "SHLVL=0"}, ""},
		{"a socket for stdin at SHLVL 1", "./wstool", []string{sys, "SHLVL=1"}, "./wstool"},
		{"SSH_CLIENT, SHLVL unset", "./wstool", []string{sys, "SSH_CLIENT=1.2.3.4 5 22"}, ""},
		{"SSH_CLIENT, SHLVL 1", "./wstool", []string{sys, "SSH_CLIENT=1.2.3.4 5 22", "SHLVL=1"}, "./wstool"},
	}
	if err := os.Symlink("/proc/self/cwd", filepath.Join(ws, "proclink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, filepath.Join(private, "wslink")); err != nil {
		t.Fatal(err)
	}
	sock, peer, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	defer peer.Close()
	inTmp := filepath.Join(private, "ws")
	write(filepath.Join(inTmp, "tool"), exe, 0o755)
	write(filepath.Join(private, "beside", "tool"), exe, 0o755)
	for _, tt := range tests {
		p, dir := prof, ws
		switch tt.name {
		case "bash where the profile reads nothing":
			p = &sandbox.Profile{Name: "reads-nothing"}
		case "a workspace in the private tmp", "beside a workspace in the private tmp":
			q := *prof
			q.Workspace = inTmp
			p, dir = &q, inTmp
		case "a PATH entry under a protected path":
			q := *prof
			q.Protect = []string{filepath.Join(ws, ".git")}
			p = &q
		case "bash's libraries hidden":
			q := *prof
			q.Hide = []string{"/usr/lib/x86_64-linux-gnu/libtinfo.so.6"}
			p = &q
		case "an address space limit":
			q := *prof
			q.Limits.AS = 1 << 20
			p = &q
		}
		c := &sandbox.Command{Argv: []string{"bash", "-c", tt.word}, Plain: []string{tt.word}, Dir: dir, Profile: p}
		if strings.HasPrefix(tt.name, "a socket for stdin") {
			c.Stdin = sock
		}
		pr, ok := plainExec(c, tt.env, true)
		if ok != (tt.wantPath != "") || pr.path != tt.wantPath {
			t.Errorf("%s: plainExec = %q, %v; want %q", tt.name, pr.path, ok, tt.wantPath)
		}
	}
}

// TestPlainExecOLDPWDInPrivateTmp: an OLDPWD in the host's /tmp that the
// run's private /tmp shows nothing of names no directory for bash, which
// passes none on: plainExec runs the command without bash and without
// OLDPWD. One the private /tmp keeps (a workspace there, what is bound
// back through the nearest existing directory of a kept path not made
// yet), or on the way to one, is the host's or unknown, and one when the
// run gives no private /tmp is the host's: as before.
func TestPlainExecOLDPWDInPrivateTmp(t *testing.T) {
	root := t.TempDir()
	private := filepath.Join(root, "tmp")
	ws := filepath.Join(root, "ws")
	for _, d := range []string{ws, filepath.Join(private, "left"), filepath.Join(private, "kept", "beside"), filepath.Join(private, "deep", "ws")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, oldpwd, workspace, dir string
		privateTmp                   bool
		plain, keep                  bool
	}{
		{"left in the private tmp", filepath.Join(private, "left"), "", ws, true, true, false},
		{"below it, missing on the host too", filepath.Join(private, "left", "gone"), "", ws, true, true, false},
		{"no private tmp given", filepath.Join(private, "left"), "", ws, false, false, false},
		{"the private tmp itself", private, "", ws, true, false, false},
		{"not clean", filepath.Join(private, "left") + "/", "", ws, true, false, false},
		{"beside a workspace in the private tmp", filepath.Join(private, "left"), filepath.Join(private, "deep", "ws"), filepath.Join(private, "deep", "ws"), true, true, false},
		{"on the way to a workspace in the private tmp", filepath.Join(private, "deep"), filepath.Join(private, "deep", "ws"), filepath.Join(private, "deep", "ws"), true, false, false},
		{"a workspace in the private tmp", filepath.Join(private, "deep", "ws"), filepath.Join(private, "deep", "ws"), filepath.Join(private, "deep", "ws"), true, true, true},
		// The workspace is not made yet: the private tmp keeps the
		// host's kept/ whole, beside/ with it.
		{"beside a kept path not made yet", filepath.Join(private, "kept", "beside"), filepath.Join(private, "kept", "ws"), ws, true, false, false},
		// The working directory is kept visible when in the private tmp.
		{"the working directory in the private tmp", filepath.Join(private, "left"), "", filepath.Join(private, "left"), true, false, false},
	}
	for _, tt := range tests {
		p := &sandbox.Profile{Name: "test", ReadAll: true, PrivateTmp: []string{private}, Workspace: tt.workspace}
		env := []string{"PATH=/usr/bin:/bin", "OLDPWD=" + tt.oldpwd}
		c := &sandbox.Command{Argv: []string{"bash", "-c", "/bin/true"}, Plain: []string{"/bin/true"}, Dir: tt.dir, Profile: p}
		pr, ok := plainExec(c, env, tt.privateTmp)
		if ok != tt.plain {
			t.Errorf("%s: plainExec ok = %v, want %v", tt.name, ok, tt.plain)
			continue
		}
		if keep := slices.Contains(pr.env, "OLDPWD="+tt.oldpwd); ok && keep != tt.keep {
			t.Errorf("%s: OLDPWD passed on = %v, want %v (%q)", tt.name, keep, tt.keep, pr.env)
		}
	}
}

// TestPlainExecCapless: root's restricted command holds no capability,
// so root's own access says nothing of what it may execute: a file root
// owns with the owner's x bit, in directories root owns likewise, is
// executable, one nobody may execute is not, and anything else is bash's
// to find.
func TestPlainExecCapless(t *testing.T) {
	requireRoot(t, "only root's access differs with capabilities")
	dir := t.TempDir()
	exe, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	bin := func(name string, mode os.FileMode, fileOwner, dirOwner int) string {
		t.Helper()
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		prog := filepath.Join(d, "ls")
		if err := os.WriteFile(prog, exe, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(prog, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(prog, fileOwner, fileOwner); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, dirOwner, dirOwner); err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name, entry, want string // want "": bash decides
	}{
		{"another user's program", bin("user", 0o700, 1000, 0), ""},
		{"root's program in another user's directory", bin("userdir", 0o755, 0, 1000), ""},
		{"another user's file nobody may execute", bin("noexec", 0o600, 1000, 0), "/usr/bin/ls"},
		{"root's program", bin("root", 0o700, 0, 0), filepath.Join(dir, "root", "ls")},
	}
	restricted := &sandbox.Profile{Name: "restricted", ReadAll: true}
	for _, tt := range tests {
		c := &sandbox.Command{Argv: []string{"bash", "-c", "ls"}, Plain: []string{"ls"}, Dir: dir, Profile: restricted}
		pr, ok := plainExec(c, []string{"PATH=" + tt.entry + ":/usr/bin:/bin"}, true)
		if ok != (tt.want != "") || pr.path != tt.want {
			t.Errorf("%s: plainExec = %q, %v; want %q", tt.name, pr.path, ok, tt.want)
		}
	}
	// An unrestricted command keeps root's capabilities, and may start
	// without the helper, which alone can fall back to bash: bash runs it.
	c := &sandbox.Command{Argv: []string{"bash", "-c", "ls"}, Plain: []string{"ls"}, Dir: dir,
		Profile: &sandbox.Profile{Name: "full-access", Unrestricted: true}}
	if pr, ok := plainExec(c, []string{"PATH=/usr/bin:/bin"}, true); ok {
		t.Errorf("unrestricted: plainExec = %q, want bash", pr.path)
	}
}

// socketPair returns the two ends of a unix socket pair, as a Node parent
// gives its children for stdin.
func socketPair() (*os.File, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "sock"), os.NewFile(uintptr(fds[1]), "peer"), nil
}

// TestPlainExecLongScript: a script longer than one argument may be is
// refused to bash by the kernel, while its words would each fit.
func TestPlainExecLongScript(t *testing.T) {
	words := append([]string{"/bin/true"}, slices.Repeat([]string{"a"}, maxArgStrlen/2)...)
	script := strings.Join(words, " ")
	c := &sandbox.Command{Argv: []string{"bash", "-c", script}, Plain: words, Dir: t.TempDir()}
	if _, ok := plainExec(c, []string{"PATH=/usr/bin:/bin"}, true); ok {
		t.Errorf("a %d-byte script ran without bash", len(script))
	}
	c.Argv[2], c.Plain = "/bin/true a", []string{"/bin/true", "a"}
	if _, ok := plainExec(c, []string{"PATH=/usr/bin:/bin"}, true); !ok {
		t.Error("a short script did not run without bash")
	}
}
