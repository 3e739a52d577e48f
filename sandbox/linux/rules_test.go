//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// ruleKey flattens a seccomp rule for comparison.
func ruleNames(rules []SyscallRule) map[string]int {
	m := map[string]int{}
	for _, r := range rules {
		m[r.Syscall]++
	}
	return m
}

func findRules(rules []SyscallRule, name string) []SyscallRule {
	var out []SyscallRule
	for _, r := range rules {
		if r.Syscall == name {
			out = append(out, r)
		}
	}
	return out
}

// TestSeccompNamespacedFamilies: where the network is a namespace of the
// command's own (proxy, isolated), a socket of a family the namespace does
// not contain (AF_VSOCK reaches the hypervisor) is refused, whatever junk
// sits above the int; the families it contains stay allowed.
func TestSeccompNamespacedFamilies(t *testing.T) {
	for _, p := range []sandbox.Profile{
		{Network: sandbox.NetworkProxy, UnixSockets: true},
		{Network: sandbox.NetworkIsolated, UnixSockets: true},
	} {
		prog, err := buildBPF(seccompRules(&p))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			domain uint64
			deny   bool
		}{
			{unix.AF_VSOCK, true}, {unix.AF_VSOCK | 0xdead<<32, true}, {unix.AF_TIPC, true}, {unix.AF_RDS, true},
			{unix.AF_BLUETOOTH, true}, {unix.AF_ALG, true},
			{unix.AF_INET, false}, {unix.AF_INET6, false}, {unix.AF_UNIX, false}, {unix.AF_NETLINK, false},
			{unix.AF_INET | 1<<32, false},
		} {
			d := seccompData{nr: syscallNumbers()["socket"], arch: nativeAuditArch, args: [6]uint64{c.domain, unix.SOCK_STREAM}}
			got, err := runBPF(prog, d)
			if err != nil {
				t.Fatal(err)
			}
			if deny := got == unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM); deny != c.deny {
				t.Errorf("network %s: socket(%#x): returns %#x, want denied %v", p.Network, c.domain, got, c.deny)
			}
		}
	}
}

func TestSeccompRules(t *testing.T) {
	tests := []struct {
		name       string
		p          sandbox.Profile
		socket     []ArgCond // nil entry list: no socket rule
		socketRule bool
	}{
		{"network off, unix allowed", sandbox.Profile{Network: sandbox.NetworkOff, UnixSockets: true},
			[]ArgCond{{Arg: 0, Op: NotEqual, Value: unix.AF_UNIX}}, true},
		{"network off, unix denied", sandbox.Profile{Network: sandbox.NetworkOff}, nil, true},
		{"network on", sandbox.Profile{Network: sandbox.NetworkOn, UnixSockets: true}, nil, false},
		{"network on, unix denied", sandbox.Profile{Network: sandbox.NetworkOn},
			[]ArgCond{{Arg: 0, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.AF_UNIX}}, true},
		{"isolated", sandbox.Profile{Network: sandbox.NetworkIsolated, UnixSockets: true}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := seccompRules(&tt.p)
			names := ruleNames(rules)
			for _, call := range alwaysDenied {
				if names[call] != 1 {
					t.Errorf("%s: %d rules, want 1", call, names[call])
				}
			}
			if got := len(findRules(rules, "clone")); got != len(namespaceCloneFlags) {
				t.Errorf("clone: %d rules, want %d", got, len(namespaceCloneFlags))
			}
			if pr := findRules(rules, "prlimit64"); len(pr) != 1 || !slices.Equal(pr[0].Conds, []ArgCond{{Arg: 0, Op: NotEqual}, {Arg: 2, Op: NotEqual}}) {
				t.Errorf("prlimit64 rules = %+v, want one denying a new limit for another pid", pr)
			}
			for _, call := range []string{"setpriority", "ioprio_set"} {
				if got := findRules(rules, call); len(got) != 2 || got[1].Conds[0] != (ArgCond{Arg: 1, Op: NotEqual}) {
					t.Errorf("%s rules = %+v, want one for another process and one for a group or user", call, got)
				}
			}
			if c3 := findRules(rules, "clone3"); len(c3) != 1 || c3[0].Errno != unix.ENOSYS {
				t.Errorf("clone3 rules = %+v, want one ENOSYS", c3)
			}
			for _, r := range findRules(rules, "ioctl") {
				if len(r.Conds) == 0 || r.Conds[0].Arg != 1 || r.Conds[0].Mask != 0xffffffff {
					t.Errorf("ioctl rule %+v does not mask the request to 32 bits", r)
				}
			}
			for _, call := range []string{"socket", "socketpair"} {
				// The namespace's rule of families is TestSeccompNamespacedFamilies's.
				rs := slices.DeleteFunc(findRules(rules, call), func(r SyscallRule) bool {
					return slices.Equal(r.Conds, namespacedFamiliesOnly().Conds)
				})
				if !tt.socketRule {
					if len(rs) != 0 {
						t.Errorf("%s: unexpected rules %+v", call, rs)
					}
					continue
				}
				if len(rs) != 1 || !slices.Equal(rs[0].Conds, tt.socket) || rs[0].Errno != unix.EPERM {
					t.Errorf("%s rules = %+v, want conds %+v", call, rs, tt.socket)
				}
			}
			prog, err := buildBPF(rules)
			if err != nil {
				t.Fatal(err)
			}
			if len(prog) < 8*len(rules) {
				t.Errorf("BPF program has %d instructions for %d rules", len(prog)/8, len(rules))
			}
		})
	}
}

func TestBuildBPFRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		rule SyscallRule
	}{
		{"unknown syscall", SyscallRule{Syscall: "no_such_call", Errno: unix.EPERM}},
		// A condition with no operator is not silently "not equal".
		{"no operator", SyscallRule{Syscall: "socket", Errno: unix.EPERM, Conds: []ArgCond{{Arg: 0, Mask: 0, Value: 1}}}},
		{"unknown operator", SyscallRule{Syscall: "socket", Errno: unix.EPERM, Conds: []ArgCond{{Arg: 0, Op: 99, Value: 1}}}},
	} {
		if _, err := buildBPF([]SyscallRule{tt.rule}); err == nil {
			t.Errorf("%s: buildBPF accepted %+v", tt.name, tt.rule)
		}
	}
}

func TestLandlockRules(t *testing.T) {
	dev := []PathRule{{"/dev/null", true}, {"/dev/zero", true}, {"/dev/full", true}, {"/dev/tty", true}}
	tests := []struct {
		name string
		p    sandbox.Profile
		want []PathRule
	}{
		{"read-only", sandbox.Profile{ReadAll: true}, append([]PathRule{{"/", false}}, dev...)},
		{"workspace-write", sandbox.Profile{ReadAll: true, Write: []string{"/w", "/tmp"}},
			append([]PathRule{{"/", false}, {"/w", true}, {"/tmp", true}}, dev...)},
		{"narrow read", sandbox.Profile{Read: []string{"/usr", "/etc"}, Write: []string{"/w"}},
			append([]PathRule{{"/usr", false}, {"/etc", false}, {"/w", true}}, dev...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := landlockRules(&tt.p); !slices.Equal(got, tt.want) {
				t.Errorf("LandlockRules = %+v\nwant %+v", got, tt.want)
			}
		})
	}
	on := landlockConfig(&sandbox.Profile{Network: sandbox.NetworkOn}, MaxLandlockABI)
	off := landlockConfig(&sandbox.Profile{Network: sandbox.NetworkOff}, MaxLandlockABI)
	if on.HandledAccessNet != 0 || off.HandledAccessNet == 0 {
		t.Errorf("handled net: on=%v off=%v", on.HandledAccessNet, off.HandledAccessNet)
	}
}

func TestScrubEnv(t *testing.T) {
	env := []string{"PATH=/bin", "SSH_AUTH_SOCK=/s", "GH_TOKEN=x", "MY_SECRET_KEY=y", "AWS_REGION=z",
		"TOKEN=keep", "A?B=keep", "noequals", "HOME=/h"}
	deny := []string{"SSH_AUTH_SOCK", "*_TOKEN", "*_SECRET*", "AWS_*", "A?C"}
	got := sandbox.ScrubEnv(env, deny)
	want := []string{"PATH=/bin", "TOKEN=keep", "A?B=keep", "HOME=/h"}
	if !slices.Equal(got, want) {
		t.Errorf("ScrubEnv = %q, want %q", got, want)
	}
}

func TestMountPlan(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(base, "home", ".ssh")
	os.MkdirAll(secret, 0o700)
	netrc := filepath.Join(base, "home", ".netrc")
	os.WriteFile(netrc, []byte("x"), 0o600)
	p := &sandbox.Profile{
		Write:   []string{base, ws},
		Protect: []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".gatedexec"), "/etc/elsewhere"},
		Hide:    []string{secret, netrc, filepath.Join(base, "missing")},
	}
	ops, created, err := mountPlan(p, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []mountOp{
		{mountWritable, base},
		{mountWritable, ws},
		{mountTreeReadOnly, "/"},
		{mountPin, ws},
		{mountPin, filepath.Join(ws, ".git")},
		{mountReadOnly, filepath.Join(ws, ".git", "hooks")},
		{mountReadOnly, filepath.Join(ws, ".gatedexec")},
		{mountEmptyDir, secret},
		{mountNullFile, netrc},
	}
	if !slices.Equal(ops, want) {
		t.Errorf("mountPlan =\n%+v\nwant\n%+v", ops, want)
	}
	if !slices.Equal(created, []string{filepath.Join(ws, ".gatedexec")}) {
		t.Errorf("placeholders = %q", created)
	}
	// A second plan (a concurrent run) finds the placeholder and reuses it.
	if _, again, err := mountPlan(p, ""); err != nil || len(again) != 0 {
		t.Errorf("second plan: created %q, err %v", again, err)
	}
}

// TestMountPlanRootWrite: under a write root of "/" (an escalation's
// "write access to /"), every directory above a protect path is pinned
// too, so none can be renamed to move the read-only mount aside.
func TestMountPlanRootWrite(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(base, "ws", ".git", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	ops, _, err := mountPlan(&sandbox.Profile{Write: []string{"/"}, Protect: []string{hooks}}, "")
	if err != nil {
		t.Fatal(err)
	}
	var want []mountOp
	for dir := filepath.Dir(hooks); dir != "/"; dir = filepath.Dir(dir) {
		want = append([]mountOp{{mountPin, dir}}, want...)
	}
	want = append([]mountOp{{mountWritable, "/"}, {mountTreeReadOnly, "/"}}, want...)
	want = append(want, mountOp{mountReadOnly, hooks})
	if !slices.Equal(ops, want) {
		t.Errorf("mountPlan =\n%+v\nwant\n%+v", ops, want)
	}
}

// TestMountPlanMissingParent: without .git, its protected entries are held
// by one empty .git, so no directory named config is left behind (which
// would break a later `git init`) and nothing that exists turns read-only.
func TestMountPlanMissingParent(t *testing.T) {
	ws := t.TempDir()
	p := &sandbox.Profile{
		Write:   []string{ws, "/nonexistent-gatedexec-root"},
		Protect: []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".git", "config"), "/nonexistent-gatedexec-root/x"},
	}
	ops, created, err := mountPlan(p, "")
	if err != nil {
		t.Fatal(err)
	}
	dotgit := filepath.Join(ws, ".git")
	// The missing write root is left out of the read-only tree's exceptions.
	want := []mountOp{{mountWritable, ws}, {mountTreeReadOnly, "/"}, {mountReadOnly, dotgit}}
	if !slices.Equal(ops, want) {
		t.Errorf("mountPlan = %+v, want %+v", ops, want)
	}
	if !slices.Equal(created, []string{dotgit}) {
		t.Errorf("placeholders = %q, want just %s", created, dotgit)
	}
	if entries, err := os.ReadDir(dotgit); err != nil || len(entries) != 0 {
		t.Errorf(".git holds %v (%v), want an empty directory", entries, err)
	}

	// The next run, or a concurrent one, holds them by the same .git and
	// makes nothing: before, it found .git and made .git/hooks and a
	// directory named .git/config.
	ops, created, err = mountPlan(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ops, want) || len(created) != 0 {
		t.Errorf("second plan: %+v creating %q, want %+v creating nothing", ops, created, want)
	}
	if entries, err := os.ReadDir(dotgit); err != nil || len(entries) != 0 {
		t.Errorf("after the second plan .git holds %v (%v), want an empty directory", entries, err)
	}
}

// TestMountPlanHolder: a missing protect path is held by its deepest
// existing ancestor only when that is an empty directory below the write
// root; otherwise by its outermost missing component, made for it.
func TestMountPlanHolder(t *testing.T) {
	tests := []struct {
		name  string
		exist []string // directories, "f:" prefix for a file
		inner string   // a second write root, inside the first
		// rootWrite makes / the only write root; cwd is the working
		// directory, relative to the workspace ("" for unknown).
		rootWrite bool
		cwd       string
		protect   string
		want      string
		made      bool
	}{
		{name: "empty workspace", protect: ".git/config", want: ".git", made: true},
		{name: "empty .git", exist: []string{".git"}, protect: ".git/config", want: ".git"},
		{name: "empty .git, deeper path", exist: []string{".git"}, protect: ".git/a/b", want: ".git"},
		{name: "real .git", exist: []string{".git", "f:.git/HEAD"}, protect: ".git/hooks", want: ".git/hooks", made: true},
		{name: "empty dir below a full one", exist: []string{".git", "f:.git/HEAD", ".git/x"}, protect: ".git/x/y", want: ".git/x"},
		{name: "the write root itself is never the holder", protect: "x", want: "x", made: true},
		{name: "nor is an inner write root", exist: []string{"ws"}, inner: "ws", protect: "ws/.git/config", want: "ws/.git", made: true},
		// Under a write root of /, the workspace is no write root: its
		// emptiness must not make it read-only, and "/" + "/" is no
		// prefix of anything.
		{name: "write root /: empty .git", rootWrite: true, exist: []string{".git"}, protect: ".git/config", want: ".git"},
		{name: "write root /: nor is the working directory", rootWrite: true, cwd: ".", protect: ".git/config", want: ".git", made: true},
		{name: "exists", exist: []string{".git", ".git/hooks"}, protect: ".git/hooks", want: ".git/hooks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			for _, e := range tt.exist {
				var err error
				if f, ok := strings.CutPrefix(e, "f:"); ok {
					err = os.WriteFile(filepath.Join(ws, f), nil, 0o644)
				} else {
					err = os.Mkdir(filepath.Join(ws, e), 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			p := &sandbox.Profile{Write: []string{ws}, Protect: []string{filepath.Join(ws, tt.protect)}}
			if tt.inner != "" {
				p.Write = append(p.Write, filepath.Join(ws, tt.inner))
			}
			if tt.rootWrite {
				p.Write = []string{"/"}
			}
			cwd := ""
			if tt.cwd != "" {
				cwd = filepath.Join(ws, tt.cwd)
			}
			ops, created, err := mountPlan(p, cwd)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(ws, tt.want)
			if len(ops) == 0 || ops[len(ops)-1] != (mountOp{mountReadOnly, want}) {
				t.Errorf("mountPlan = %+v, want it to end with a read-only mount of %s", ops, want)
			}
			if made := slices.Contains(created, want); made != tt.made || len(created) > 1 {
				t.Errorf("created %q, want %s made: %v", created, want, tt.made)
			}
		})
	}
}

// TestFallbackSeccompTCPOnly: the egress fallback, sharing the host's
// network, lets the command make IPv4 and IPv6 TCP streams alone: no UDP,
// and no stream of a protocol Landlock's TCP rules do not cover (MPTCP,
// SCTP), each compared as the int the kernel reads.
func TestFallbackSeccompTCPOnly(t *testing.T) {
	p := sandbox.Profile{Network: sandbox.NetworkProxy, UnixSockets: true}
	prog, err := buildBPF(append(seccompRules(&p), fallbackSeccompRules()...))
	if err != nil {
		t.Fatal(err)
	}
	const mptcp, sctp = 262, 132
	for _, c := range []struct {
		domain, typ, proto uint64
		deny               bool
	}{
		{unix.AF_INET, unix.SOCK_STREAM, 0, false},
		{unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK, unix.IPPROTO_TCP, false},
		{unix.AF_INET, unix.SOCK_STREAM, 1<<32 | unix.IPPROTO_TCP, false},
		{unix.AF_INET, unix.SOCK_STREAM, mptcp, true},
		{unix.AF_INET6, unix.SOCK_STREAM, mptcp, true},
		{unix.AF_INET, unix.SOCK_STREAM, sctp, true},
		{unix.AF_INET, unix.SOCK_STREAM, 1<<32 | mptcp, true},
		{unix.AF_INET, unix.SOCK_DGRAM, 0, true},
		{unix.AF_INET6, unix.SOCK_SEQPACKET, sctp, true},
		{unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_TCP, true},
		{unix.AF_UNIX, unix.SOCK_DGRAM, 0, false},
	} {
		d := seccompData{nr: syscallNumbers()["socket"], arch: nativeAuditArch, args: [6]uint64{c.domain, c.typ, c.proto}}
		got, err := runBPF(prog, d)
		if err != nil {
			t.Fatal(err)
		}
		if deny := got == unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM); deny != c.deny {
			t.Errorf("socket(%d, %#x, %#x): returns %#x, want denied %v", c.domain, c.typ, c.proto, got, c.deny)
		}
	}
}
