package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func wsProfile() *Profile {
	return &Profile{
		Name: "workspace-write", ReadAll: true,
		Write:   []string{"/home/u/proj", "/tmp"},
		Protect: []string{"/home/u/proj/.git/hooks", "/home/u/proj/.git/config", "/home/u/proj/.gatedexec"},
		Hide:    []string{"/home/u/.ssh", "/home/u/.aws"},
		Network: NetworkOff, UnixSockets: true,
	}
}

func TestDetectLines(t *testing.T) {
	const cwd = "/home/u/proj"
	tests := []struct {
		line, kind, path string
	}{
		// fs-write outside the writable set, in many tools' shapes.
		{"touch: cannot touch '/etc/x': Permission denied", KindFSWrite, "/etc/x"},
		{"touch: cannot touch ‘/etc/x’: Permission denied", KindFSWrite, "/etc/x"},
		{"bash: /usr/local/bin/tool: Read-only file system", KindFSWrite, "/usr/local/bin/tool"},
		{"bash: line 1: /opt/out.txt: Permission denied", KindFSWrite, "/opt/out.txt"},
		{"mkdir: cannot create directory '/home/u/.cache/pip': Permission denied", KindFSWrite, "/home/u/.cache/pip"},
		{"mkdir: cannot create directory ‘/var/lib/x’: Read-only file system", KindFSWrite, "/var/lib/x"},
		{"open /home/u/go/pkg/mod/cache/lock: permission denied", KindFSWrite, "/home/u/go/pkg/mod/cache/lock"},
		{"go: creating work dir: mkdir /home/u/.cache/go-build/ab: permission denied", KindFSWrite, "/home/u/.cache/go-build/ab"},
		{"PermissionError: [Errno 13] Permission denied: '/usr/lib/python3/dist-packages/x.pth'", KindFSWrite, "/usr/lib/python3/dist-packages/x.pth"},
		{"OSError: [Errno 30] Read-only file system: '/home/u/.local/lib'", KindFSWrite, "/home/u/.local/lib"},
		{"ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/local/lib/python3.12/site-packages/six.py'", KindFSWrite, "/usr/local/lib/python3.12/site-packages/six.py"},
		{"Error: EACCES: permission denied, open '/home/u/.npm/_cacache/tmp/x'", KindFSWrite, "/home/u/.npm/_cacache/tmp/x"},
		{"npm ERR! Error: EACCES: permission denied, mkdir '/usr/lib/node_modules/pkg'", KindFSWrite, "/usr/lib/node_modules/pkg"},
		{"Error: EPERM: operation not permitted, rename '/home/u/proj/a' -> '/home/u/b'", KindFSWrite, "/home/u/b"},
		{"cp: cannot create regular file '/etc/hosts': Permission denied", KindFSWrite, "/etc/hosts"},
		{"rm: cannot remove '/home/u/notes.txt': Operation not permitted", KindFSWrite, "/home/u/notes.txt"},
		{"mv: cannot move 'a' to '/srv/a': Permission denied", KindFSWrite, "/srv/a"},
		{"error: could not lock config file /home/u/.gitconfig: Permission denied", KindFSWrite, "/home/u/.gitconfig"},
		{"java.io.FileNotFoundException: /opt/app/log.txt (Permission denied)", KindFSWrite, "/opt/app/log.txt"},
		{"error: failed to create directory `/home/u/.cargo/registry`", "", ""},
		// BSD tools and zsh on macOS, where Seatbelt says EPERM.
		{"touch: /etc/x: Operation not permitted", KindFSWrite, "/etc/x"},
		{"mkdir: /opt/new: Operation not permitted", KindFSWrite, "/opt/new"},
		{"zsh: operation not permitted: /usr/local/out.log", KindFSWrite, "/usr/local/out.log"},
		{"cat: /home/u/.aws/config: Operation not permitted", KindFSHidden, "/home/u/.aws/config"},
		{"touch: /private/tmp/x: Operation not permitted", "", ""},
		{"touch: /private/var/x: Operation not permitted", KindFSWrite, "/private/var/x"},
		// protect paths inside the workspace: relative and absolute.
		{"cp: cannot create regular file '.git/hooks/pre-commit': Read-only file system", KindFSWrite, "/home/u/proj/.git/hooks/pre-commit"},
		{"bash: .git/config: Permission denied", KindFSWrite, "/home/u/proj/.git/config"},
		{"mkdir: cannot create directory '.gatedexec': Permission denied", KindFSWrite, "/home/u/proj/.gatedexec"},
		// hide paths: denied, or empty (ENOENT) under the Linux backend.
		{"cat: /home/u/.ssh/id_ed25519: Permission denied", KindFSHidden, "/home/u/.ssh/id_ed25519"},
		{"cat: /home/u/.ssh/id_ed25519: No such file or directory", KindFSHidden, "/home/u/.ssh/id_ed25519"},
		{"FileNotFoundError: [Errno 2] No such file or directory: '/home/u/.aws/credentials'", KindFSHidden, "/home/u/.aws/credentials"},
		{"ls: cannot open directory '/home/u/.ssh': Operation not permitted", KindFSHidden, "/home/u/.ssh"},
		// A write under a hidden path missing on the host: hidden too.
		{"touch: cannot touch '/home/u/.ssh/x': No such file or directory", KindFSHidden, "/home/u/.ssh/x"},
		// Not denials: granted paths, host permissions, plain errors.
		{"touch: cannot touch '/home/u/proj/x': Permission denied", "", ""},
		{"touch: cannot touch 'build/out': Permission denied", "", ""},
		{"bash: /tmp/x: Permission denied", "", ""},
		{"cat: /etc/shadow: Permission denied", "", ""},
		{"grep: /root/secret: Permission denied", "", ""},
		{"cat: /etc/nope: No such file or directory", "", ""},
		{"bash: /dev/tty: Permission denied", "", ""},
		{"make: *** [Makefile:3: all] Error 1", "", ""},
		{"Segmentation fault (core dumped)", "", ""},
		{"error: expected ';' before '}' token", "", ""},
		// Syscalls the seccomp filter denies.
		{"strace: ptrace(PTRACE_TRACEME, ...): Operation not permitted", KindSyscall, "ptrace"},
		{"unshare: unshare failed: Operation not permitted", KindSyscall, "unshare"},
		{"io_uring_setup: Operation not permitted", KindSyscall, "io_uring_setup"},
		// Network with the network off.
		{"curl: (6) Could not resolve host: example.com", KindNetConnect, ""},
		{"curl: (7) Failed to connect to 1.1.1.1 port 443 after 0 ms: Couldn't connect to server", KindNetConnect, ""},
		{"fatal: unable to access 'https://github.com/x/y.git/': Could not resolve host: github.com", KindNetConnect, ""},
		{"ssh: Could not resolve hostname github.com: Temporary failure in name resolution", KindNetConnect, ""},
		{"wget: unable to resolve host address 'example.com'", KindNetConnect, ""},
		{"WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')'", KindNetConnect, ""},
		{"npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org", KindNetConnect, ""},
		{"go: downloading x: Get \"https://proxy.golang.org/x\": dial tcp: lookup proxy.golang.org on 127.0.0.53:53: server misbehaving", KindNetConnect, ""},
		{"socket: Operation not permitted", KindNetConnect, ""},
		{"ping: connect: Network is unreachable", KindNetConnect, ""},
		{"listen tcp :8080: bind: permission denied", KindNetBind, ""},
		{"Error: listen EACCES: permission denied 0.0.0.0:3000", KindNetBind, ""},
	}
	for _, tt := range tests {
		res := &Result{ExitCode: 1, StderrTail: []byte("noise before\n" + tt.line + "\nnoise after\n")}
		got := Detect(wsProfile(), res, cwd)
		if tt.kind == "" {
			if len(got) != 0 {
				t.Errorf("%q: want no denial, got %v", tt.line, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Kind != tt.kind || got[0].Path != tt.path || got[0].Evidence != tt.line {
			t.Errorf("%q:\n got %+v\nwant %s %s", tt.line, got, tt.kind, tt.path)
		}
	}
}

func TestDetectConditions(t *testing.T) {
	line := []byte("touch: cannot touch '/etc/x': Permission denied\ncurl: (6) Could not resolve host: example.com\n")
	p := wsProfile()
	for _, tt := range []struct {
		name string
		p    *Profile
		res  *Result
		want int
	}{
		{"success", p, &Result{ExitCode: 0, StderrTail: line}, 0},
		{"not found", p, &Result{ExitCode: 127, StderrTail: line}, 0},
		{"timed out", p, &Result{ExitCode: 137, Signal: 9, TimedOut: true, StderrTail: line}, 0},
		{"plain failure", p, &Result{ExitCode: 1, StderrTail: []byte("failed\n")}, 0},
		{"exit 2 no evidence", p, &Result{ExitCode: 2, StderrTail: []byte("usage: x [-h]\n")}, 0},
		{"exit 126 no evidence", p, &Result{ExitCode: 126}, 0},
		{"unrestricted", &Profile{Unrestricted: true}, &Result{ExitCode: 1, StderrTail: line}, 0},
		{"both", p, &Result{ExitCode: 1, StderrTail: line}, 2},
		{"network on", &Profile{ReadAll: true, Network: NetworkOn}, &Result{ExitCode: 1, StderrTail: line}, 1},
		{"sigsys", p, &Result{ExitCode: 128 + int(syscall.SIGSYS), Signal: int(syscall.SIGSYS)}, 1},
		{"nil result", p, nil, 0},
	} {
		if got := Detect(tt.p, tt.res, "/"); len(got) != tt.want {
			t.Errorf("%s: got %d denials %v, want %d", tt.name, len(got), got, tt.want)
		}
	}
	// SIGSYS comes first, then paths, then network.
	res := &Result{ExitCode: 159, Signal: int(syscall.SIGSYS), StderrTail: append([]byte("curl: (6) Could not resolve host: x\n"), line...)}
	got := Detect(p, res, "/")
	if len(got) != 3 || got[0].Kind != KindSyscall || got[1].Kind != KindFSWrite || got[2].Kind != KindNetConnect {
		t.Errorf("order: %v", got)
	}
}

func TestDetectNarrowRead(t *testing.T) {
	p := &Profile{Read: []string{"/usr", "/home/u/proj"}, Write: []string{"/home/u/proj/out"}, Network: NetworkOff}
	res := &Result{ExitCode: 1, StderrTail: []byte("cat: /opt/data.csv: Permission denied\ncat: /usr/share/x: Permission denied\n")}
	got := Detect(p, res, "/home/u/proj")
	if len(got) != 1 || got[0].Kind != KindFSRead || got[0].Path != "/opt/data.csv" {
		t.Errorf("got %v", got)
	}
}

func TestDetectBounded(t *testing.T) {
	var tail []byte
	for i := 0; i < 100; i++ {
		tail = append(tail, []byte("touch: cannot touch '/etc/x"+string(rune('a'+i%26))+string(rune('a'+i/26))+"': Permission denied\n")...)
	}
	if got := Detect(wsProfile(), &Result{ExitCode: 1, StderrTail: tail}, "/"); len(got) != maxDenials {
		t.Errorf("got %d denials, want the bound %d", len(got), maxDenials)
	}
}

func TestDetectRealFile(t *testing.T) {
	// An error printed by a real failing open, shaped by Go's os package.
	// As root the open runs as nobody (asUnprivileged): root's
	// CAP_DAC_OVERRIDE would open anything.
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	var err error
	asUnprivileged(t, func() { _, err = os.Create(filepath.Join(ro, "f")) })
	if err == nil {
		if os.Getenv("CI") != "" {
			t.Fatal("created a file in a read-only directory: cannot provoke EACCES")
		}
		t.Skip("running with CAP_DAC_OVERRIDE: cannot provoke EACCES")
	}
	p := &Profile{ReadAll: true, Write: []string{filepath.Join(dir, "w")}}
	got := Detect(p, &Result{ExitCode: 1, StderrTail: []byte(err.Error())}, dir)
	if len(got) != 1 || got[0].Path != filepath.Join(ro, "f") {
		t.Errorf("%v -> %v", err, got)
	}
}

func BenchmarkDetect(b *testing.B) {
	var tail []byte
	for len(tail) < 16<<10 {
		tail = append(tail, "gcc -c foo.c -o foo.o\nwarning: unused variable 'x'\n"...)
	}
	tail = append(tail, "mkdir: cannot create directory '/home/u/.cache/pip': Permission denied\n"...)
	res := &Result{ExitCode: 1, StderrTail: tail}
	p := wsProfile()
	for b.Loop() {
		if len(Detect(p, res, "/home/u/proj")) != 1 {
			b.Fatal("want one denial")
		}
	}
}
