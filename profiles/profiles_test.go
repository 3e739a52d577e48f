package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/sandbox"
)

// fixture is a fake host: real directories under a temp dir so that
// symlink resolution has something to resolve.
type fixture struct {
	root string
	vars Vars
	dirs []string // profile layers, lowest first
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: root}
	for _, d := range []string{"ws/sub", "cwd", "home", "tmpdir", "sys", "user", "env"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A symlinked workspace entry: the resolved path must be the target.
	if err := os.Symlink(filepath.Join(root, "ws/sub"), filepath.Join(root, "ws/link")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DATA": filepath.Join(root, "env"), "REL": "relative/dir"}
	f.vars = Vars{
		Workspace: filepath.Join(root, "ws"),
		Cwd:       filepath.Join(root, "cwd"),
		Home:      filepath.Join(root, "home"),
		TmpDir:    filepath.Join(root, "tmpdir"),
		Getenv:    func(k string) string { return env[k] },
	}
	f.dirs = []string{filepath.Join(root, "sys"), filepath.Join(root, "user")}
	return f
}

func (f *fixture) write(t *testing.T, rel, src string) string {
	t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) loader() *Loader { return &Loader{Dirs: f.dirs, Vars: f.vars} }

func TestBuiltinsMatchDesign(t *testing.T) {
	f := newFixture(t)
	home, ws := f.vars.Home, f.vars.Workspace
	hide := []string{home + "/.ssh", home + "/.aws", home + "/.gnupg", home + "/.netrc", home + "/.git-credentials",
		home + "/.config/gh", home + "/.kube", home + "/.docker"}
	envDeny := []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO",
		"*_TOKEN", "*_TOKEN_*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_PWD", "*_PASS",
		"*_API_KEY", "*_API_KEY_*", "*_APIKEY", "*_ACCESS_KEY*", "*_PRIVATE_KEY*", "*_AUTH_KEY*", "*_CREDENTIAL*", "*_DSN",
		"ANTHROPIC_*", "OPENAI_*", "AZURE_OPENAI_*", "GOOGLE_*", "GEMINI_*", "MISTRAL_*", "GROQ_*", "COHERE_*",
		"DEEPSEEK_*", "XAI_*", "OPENROUTER_*", "TOGETHER_*", "REPLICATE_*", "PERPLEXITY_*", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
		"AWS_*", "AZURE_*", "GITHUB_*", "GITLAB_*", "NPM_TOKEN", "NODE_AUTH_TOKEN", "DOCKER_AUTH_CONFIG", "VAULT_*",
		":credential-urls"}
	limits := sandbox.Limits{NProc: 8192, FSize: 16 << 30, MemoryPercent: 75}
	want := map[string]*sandbox.Profile{
		"read-only": {
			Name: "read-only", Description: "Read everything except secrets, write nothing, no network",
			Enforcement: sandbox.Strict, ReadAll: true, Hide: hide,
			Network: sandbox.NetworkOff, UnixSockets: true, EnvDeny: envDeny, Workspace: ws, PrivateTmp: []string{"/tmp"},
			Limits: limits,
		},
		"workspace-write": {
			Name: "workspace-write", Description: "Read everything except secrets, write the workspace and temp dirs, no network",
			Enforcement: sandbox.Strict, ReadAll: true,
			Write:   []string{ws, "/tmp", f.vars.TmpDir},
			Protect: []string{ws + "/.git/hooks", ws + "/.git/config", ws + "/.gatedexec"},
			Hide:    hide, Network: sandbox.NetworkOff, UnixSockets: true, EnvDeny: envDeny, Workspace: ws,
			PrivateTmp: []string{"/tmp"}, Limits: limits,
			Watch: []string{ws + "/.claude", ws + "/.claude.json", ws + "/.mcp.json", ws + "/.codex", ws + "/.gemini",
				ws + "/.cursor", ws + "/.vscode", ws + "/.idea"},
		},
		"full-access": {
			Name: "full-access", Description: "No filesystem or network restriction (the policy and approval gates still apply)",
			Enforcement: sandbox.Strict, Unrestricted: true, ReadAll: true, Write: []string{"/"},
			Network: sandbox.NetworkOn, UnixSockets: true, Workspace: ws,
		},
	}
	if got := BuiltinNames(); !reflect.DeepEqual(got, []string{"full-access", "read-only", "workspace-dev", "workspace-net", "workspace-write"}) {
		t.Fatalf("BuiltinNames() = %v", got)
	}
	l := &Loader{Vars: f.vars}
	for name, w := range want {
		got, err := l.Resolve(name)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", name, err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("Resolve(%q) =\n%+v\nwant\n%+v", name, got, w)
		}
		if got.NeedsNamespaces() != (name == "workspace-write" || name == "read-only") {
			t.Errorf("%s: NeedsNamespaces() = %v", name, got.NeedsNamespaces())
		}
	}
}

func TestResolve(t *testing.T) {
	type tc struct {
		name  string
		files map[string]string // rel path -> source
		arg   string            // name or file (relative to fixture root when it has a '/')
		check func(t *testing.T, f *fixture, p *sandbox.Profile)
		err   string // substring of the error; "" means success
	}
	tests := []tc{
		{
			name:  "extends replaces lists whole",
			files: map[string]string{"user/p.toml": "extends = \"workspace-write\"\n[filesystem]\nwrite = [\":cwd\"]\n"},
			arg:   "p",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				eq(t, "write", p.Write, []string{f.vars.Cwd})
				eq(t, "protect", p.Protect, []string{f.vars.Workspace + "/.git/hooks", f.vars.Workspace + "/.git/config", f.vars.Workspace + "/.gatedexec"})
				if !p.ReadAll || p.Network != sandbox.NetworkOff || len(p.Hide) != 8 {
					t.Errorf("inherited keys lost: %+v", p)
				}
			},
		},
		{
			name:  "empty list set in child clears the parent's",
			files: map[string]string{"user/p.toml": "extends = \"read-only\"\n[filesystem]\nhide = []\n[process]\nenv_deny = []\n"},
			arg:   "p",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				if len(p.Hide) != 0 || len(p.EnvDeny) != 0 || len(p.Protect) != 0 {
					t.Errorf("hide=%v env_deny=%v", p.Hide, p.EnvDeny)
				}
			},
		},
		{
			name: "three-level chain, nearest value wins",
			files: map[string]string{
				"sys/a.toml":  "description = \"a\"\n[network]\nmode = \"on\"\n[limits]\nnofile = 10\ntimeout = \"1m\"\n",
				"sys/b.toml":  "extends = \"a\"\n[network]\nmode = \"isolated\"\n[limits]\nnofile = 20\n",
				"user/c.toml": "extends = \"b\"\ndescription = \"c\"\n[process]\nsetsid = false\n",
			},
			arg: "c",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				if p.Description != "c" || p.Network != sandbox.NetworkIsolated || p.Limits.NoFile != 20 ||
					p.Limits.Timeout != time.Minute || !p.NoSetsid || p.Name != "c" {
					t.Errorf("got %+v", p)
				}
			},
		},
		{
			name: "higher layer replaces lower and built-in",
			files: map[string]string{
				"sys/read-only.toml":  "description = \"sys\"\n",
				"user/read-only.toml": "description = \"user\"\n[network]\nmode = \"on\"\n",
			},
			arg: "read-only",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				// user's replaces everything: no read, no hide, nothing inherited
				if p.Description != "user" || p.ReadAll || len(p.Hide) != 0 || p.Network != sandbox.NetworkOn {
					t.Errorf("got %+v", p)
				}
			},
		},
		{
			name:  "extending its own name reaches the layer below",
			files: map[string]string{"user/read-only.toml": "extends = \"read-only\"\n[network]\nmode = \"isolated\"\n"},
			arg:   "read-only",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				if !p.ReadAll || len(p.Hide) != 8 || p.Network != sandbox.NetworkIsolated {
					t.Errorf("got %+v", p)
				}
			},
		},
		{
			name: "tokens",
			files: map[string]string{"user/p.toml": `[filesystem]
read = [":workspace/sub", ":cwd", ":home", "~", "~/x", "$DATA/y", "${DATA}", "/usr//bin/", ":workspace/link/z", ":home"]
`},
			arg: "p",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				r, v := f.root, f.vars
				eq(t, "read", p.Read, []string{v.Workspace + "/sub", v.Cwd, v.Home, v.Home + "/x", r + "/env/y", r + "/env", "/usr/bin", v.Workspace + "/sub/z"})
				if p.ReadAll || p.Network != sandbox.NetworkOff || p.Enforcement != sandbox.Strict {
					t.Errorf("defaults: %+v", p)
				}
			},
		},
		{
			name:  "tmp without TMPDIR",
			files: map[string]string{"user/p.toml": "[filesystem]\nwrite = [\":tmp/x\"]\n"},
			arg:   "p",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				eq(t, "write", p.Write, []string{"/tmp/x", f.vars.TmpDir + "/x"})
			},
		},
		{
			name:  "limits with sizes",
			files: map[string]string{"user/p.toml": "[limits]\nfsize = \"2M\"\nas = 4096\ncpu = 3\nnproc = 100\n"},
			arg:   "p",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				want := sandbox.Limits{FSize: 2 << 20, AS: 4096, CPU: 3, NProc: 100}
				if p.Limits != want {
					t.Errorf("limits = %+v, want %+v", p.Limits, want)
				}
			},
		},
		{
			name:  "file argument",
			files: map[string]string{"x.toml": "description = \"file\"\nenforcement = \"best-effort\"\n[network]\nunix_sockets = \"deny\"\n"},
			arg:   "x.toml",
			check: func(t *testing.T, f *fixture, p *sandbox.Profile) {
				if p.Description != "file" || p.Enforcement != sandbox.BestEffort || p.UnixSockets {
					t.Errorf("got %+v", p)
				}
			},
		},
		{name: "unknown profile", arg: "nope", err: `unknown profile "nope"`},
		{name: "cycle", files: map[string]string{"user/a.toml": "extends = \"b\"\n", "user/b.toml": "\nextends = \"a\"\n"}, arg: "a", err: `b.toml:2:1: extends: cycle through "a"`},
		{name: "self cycle in file", files: map[string]string{"user/a.toml": "extends = \"a\"\n"}, arg: "user/a.toml", err: `extends: unknown profile "a"`},
		{name: "unknown parent", files: map[string]string{"user/a.toml": "# c\nextends = \"zzz\"\n"}, arg: "a", err: `a.toml:2:1: extends: unknown profile "zzz"`},
		{name: "extends a path", files: map[string]string{"user/a.toml": "extends = \"../b.toml\"\n"}, arg: "a", err: `a.toml:1:1: extends: want a profile name`},
		{name: "unknown key", files: map[string]string{"user/a.toml": "[filesystem]\nread = []\n\nwrtie = [\":tmp\"]\n"}, arg: "a", err: `a.toml:4:1: unknown key "filesystem.wrtie"`},
		{name: "unknown table", files: map[string]string{"user/a.toml": "description = \"x\"\n[netwrk]\nmode = \"on\"\n"}, arg: "a", err: `a.toml:2:2: unknown key "netwrk"`},
		// TOML keys are case-sensitive; the library's case-insensitive
		// fallback would merge this second table into the first.
		{name: "table spelt in another case", files: map[string]string{"user/a.toml": "extends = \"read-only\"\n[filesystem]\nwrite = [\":workspace\"]\n\n[Filesystem]\nwrite = [\":all\"]\n"}, arg: "a", err: `a.toml:5:2: key "Filesystem" is not spelt "filesystem"`},
		{name: "key spelt in another case", files: map[string]string{"user/a.toml": "[network]\nMODE = \"on\"\n"}, arg: "a", err: `a.toml:2:1: key "network.MODE" is not spelt "mode"`},
		{name: "the file's name is not a key", files: map[string]string{"user/a.toml": "name = \"other.toml\"\n"}, arg: "a", err: `a.toml:1:1: unknown key "name"`},
		{name: "bad type list", files: map[string]string{"user/a.toml": "[filesystem]\nread = \"/etc\"\n"}, arg: "a", err: `a.toml:2:8: filesystem.read: want an array of strings, got a string`},
		{name: "bad type bool", files: map[string]string{"user/a.toml": "[process]\n\nsetsid = \"no\"\n"}, arg: "a", err: `a.toml:3:10: process.setsid: want a boolean, got a string`},
		{name: "memory percent zero", files: map[string]string{"user/a.toml": "[limits]\nmemory = \"0%\"\n"}, arg: "a", err: `a.toml:2:10: limits.memory: want a percentage from 1% to 100%, got "0%"`},
		{name: "memory percent over", files: map[string]string{"user/a.toml": "[limits]\nmemory = \"150%\"\n"}, arg: "a", err: `a.toml:2:10: limits.memory: want a percentage from 1% to 100%, got "150%"`},
		{name: "memory word", files: map[string]string{"user/a.toml": "[limits]\nmemory = \"lots\"\n"}, arg: "a", err: `a.toml:2:10: limits.memory: bad size "lots": want digits with an optional K, M, G or T suffix, or a percentage like "75%"`},
		{name: "unix_sockets preset", files: map[string]string{"user/a.toml": "[network]\nunix_sockets = [\":nope\"]\n"}, arg: "a", err: `a.toml:2:1: network.unix_sockets: unknown socket preset`},
		{name: "unix_sockets type", files: map[string]string{"user/a.toml": "[network]\nunix_sockets = 3\n"}, arg: "a", err: `a.toml:2:16: network.unix_sockets: want "allow", "deny" or a list of socket paths, got int64`},
		{name: "agent-config token outside protect", files: map[string]string{"user/a.toml": "[filesystem]\nread = [\":agent-config\"]\n"}, arg: "a", err: `a.toml:2:1: filesystem.read: ":agent-config" is only allowed in protect`},
		{name: "git token outside protect", files: map[string]string{"user/a.toml": "[filesystem]\nwrite = [\":git\"]\n"}, arg: "a", err: `a.toml:2:1: filesystem.write: ":git" is only allowed in protect`},
		{name: "bad enforcement", files: map[string]string{"user/a.toml": "enforcement = \"lax\"\n"}, arg: "a", err: `a.toml:1:1: enforcement: want "strict" or "best-effort", got "lax"`},
		{name: "bad mode", files: map[string]string{"user/a.toml": "[network]\nmode = \"offf\"\n"}, arg: "a", err: `a.toml:2:1: network.mode: want "off"`},
		{name: "bad unix_sockets", files: map[string]string{"user/a.toml": "[network]\nunix_sockets = \"yes\"\n"}, arg: "a", err: `a.toml:2:1: network.unix_sockets`},
		{name: "inherited bad value names the parent's file", files: map[string]string{"user/a.toml": "[network]\nmode = \"x\"\n", "user/b.toml": "extends = \"a\"\n"}, arg: "b", err: `a.toml:2:1: network.mode`},
		{name: "datetime for a string", files: map[string]string{"user/a.toml": "description = 1979-05-27T07:32:00Z\n"}, arg: "a", err: `a.toml:1:15: description: want a string, got a datetime`},
		{name: "local time for a duration", files: map[string]string{"user/a.toml": "[limits]\ntimeout = 07:32:00\n"}, arg: "a", err: `a.toml:2:11: limits.timeout: want a duration string like "10m", got toml.LocalTime`},
		{name: "key below a limit", files: map[string]string{"user/a.toml": "[limits]\nmemory.x = \"75%\"\n"}, arg: "a", err: `a.toml:2:1: limits.memory: want a size (integer or string like "512M"), got map[string]interface {}, or a percentage like "75%"`},
		{name: "limit opened as a table", files: map[string]string{"user/a.toml": "[limits.nofile]\n"}, arg: "a", err: `a.toml:1:2: limits.nofile: want a non-negative integer, got map[string]interface {}`},
		{name: "limit in an inline table", files: map[string]string{"user/a.toml": "limits = {fsize = \"1Q\"}\n"}, arg: "a", err: `a.toml:1:19: limits.fsize: bad size "1Q"`},
		{name: "unix_sockets element type", files: map[string]string{"user/a.toml": "[network]\nunix_sockets = [\"/a\",\n 2]\n"}, arg: "a", err: `a.toml:2:16: network.unix_sockets: want strings in the list, got int64`},
		{name: "key defined twice", files: map[string]string{"user/a.toml": "[network]\nmode = \"on\"\nmode = \"off\"\n"}, arg: "a", err: `a.toml:3:1: key mode is already defined`},
		{name: "syntax error", files: map[string]string{"user/a.toml": "description = \"x\"\n[filesystem\n"}, arg: "a", err: `a.toml:2:12: `},
		{name: "unset var", files: map[string]string{"user/a.toml": "[filesystem]\nread = [\"$NOPE/x\"]\n"}, arg: "a", err: `a.toml:2:1: filesystem.read: path "$NOPE/x": $NOPE is not set`},
		{name: "relative var", files: map[string]string{"user/a.toml": "[filesystem]\nread = [\"$REL/x\"]\n"}, arg: "a", err: `is not absolute`},
		{name: "bad var syntax", files: map[string]string{"user/a.toml": "[filesystem]\nread = [\"${DATA\"]\n"}, arg: "a", err: `unclosed`},
		{name: "relative path", files: map[string]string{"user/a.toml": "[filesystem]\nwrite = [\"build\"]\n"}, arg: "a", err: `a.toml:2:1: filesystem.write: path "build": want an absolute path`},
		{name: "unknown token", files: map[string]string{"user/a.toml": "[filesystem]\nwrite = [\":repo\"]\n"}, arg: "a", err: `unknown path token ":repo"`},
		{name: "all in protect", files: map[string]string{"user/a.toml": "[filesystem]\nprotect = [\":all\"]\n"}, arg: "a", err: `only allowed in read and write`},
		{name: "all with suffix", files: map[string]string{"user/a.toml": "[filesystem]\nread = [\":all/x\"]\n"}, arg: "a", err: `stands alone`},
		{name: "dotdot out of token", files: map[string]string{"user/a.toml": "[filesystem]\nwrite = [\":workspace/../x\"]\n"}, arg: "a", err: `".." is not allowed`},
		{name: "dotdot in absolute path", files: map[string]string{"user/a.toml": "[filesystem]\nread = [\"/etc/../root\"]\n"}, arg: "a", err: `".." is not allowed`},
		{name: "tilde user", files: map[string]string{"user/a.toml": "[filesystem]\nhide = [\"~root/.ssh\"]\n"}, arg: "a", err: `not ~user`},
		{name: "negative limit", files: map[string]string{"user/a.toml": "[limits]\nnofile = -1\n"}, arg: "a", err: `a.toml:2:10: limits.nofile: want a non-negative integer, got -1`},
		{name: "bad size", files: map[string]string{"user/a.toml": "[limits]\nas = \"1X\"\n"}, arg: "a", err: `bad size "1X"`},
		{name: "size overflow", files: map[string]string{"user/a.toml": "[limits]\nas = \"99999999999999T\"\n"}, arg: "a", err: `too large`},
		{name: "bad timeout", files: map[string]string{"user/a.toml": "[limits]\ntimeout = \"10\"\n"}, arg: "a", err: `bad duration`},
		{name: "bad env pattern", files: map[string]string{"user/a.toml": "[process]\nenv_deny = [\"A?B\"]\n"}, arg: "a", err: `a.toml:2:1: process.env_deny: bad pattern`},
		{name: "bad name", arg: "-x", err: `bad profile name`},
		{name: "missing file", arg: "nope/x.toml", err: `no such file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for rel, src := range tt.files {
				f.write(t, rel, src)
			}
			arg := tt.arg
			if IsFile(arg) {
				arg = filepath.Join(f.root, arg)
			}
			p, err := f.loader().Resolve(arg)
			if tt.err != "" {
				if err == nil {
					t.Fatalf("Resolve(%q) = %+v, want error containing %q", tt.arg, p, tt.err)
				}
				if !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Resolve(%q) error %q, want it to contain %q", tt.arg, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.arg, err)
			}
			tt.check(t, f, p)
		})
	}
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func TestErrorIsLocated(t *testing.T) {
	f := newFixture(t)
	p := f.write(t, "user/a.toml", "[network]\nmode = 1\n")
	_, err := f.loader().Resolve("a")
	var pe *Error
	if !errors.As(err, &pe) || pe.File != p || pe.Line != 2 || pe.Col != 8 {
		t.Fatalf("error %v: want *Error at %s:2:8", err, p)
	}
}

func TestList(t *testing.T) {
	f := newFixture(t)
	sys := f.write(t, "sys/read-only.toml", "description = \"sys ro\"\n")
	usr := f.write(t, "user/read-only.toml", "extends = \"read-only\"\n")
	mine := f.write(t, "user/mine.toml", "description = \"mine\"\n")
	f.write(t, "user/notes.txt", "not a profile")
	got, err := f.loader().List()
	if err != nil {
		t.Fatal(err)
	}
	want := []Info{
		{Name: "full-access", Description: "No filesystem or network restriction (the policy and approval gates still apply)", Source: "built-in"},
		{Name: "mine", Description: "mine", Source: mine},
		{Name: "read-only", Description: "sys ro", Source: usr, Overrides: sys},
		{Name: "workspace-dev", Description: "workspace-write plus the toolchain caches (Go, npm, pip, Cargo, Gradle, Maven) writable", Source: "built-in"},
		{Name: "workspace-net", Description: "workspace-write, with network only to the package registries and GitHub, through the egress proxy", Source: "built-in"},
		{Name: "workspace-write", Description: "Read everything except secrets, write the workspace and temp dirs, no network", Source: "built-in"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("List() =\n%+v\nwant\n%+v", got, want)
	}
	f.write(t, "user/broken.toml", "x = 1\n")
	if _, err := f.loader().List(); err == nil || !strings.Contains(err.Error(), "broken.toml:1") {
		t.Fatalf("List with a broken file: err = %v", err)
	}
}

func TestLint(t *testing.T) {
	f := newFixture(t)
	check := func(p *sandbox.Profile) []string {
		if p.Network == sandbox.NetworkIsolated {
			return []string{"no network namespace"}
		}
		return nil
	}
	tests := []struct {
		name, src string
		want      []string // Problem.String() substrings, in order
	}{
		{"clean", "extends = \"workspace-write\"\n[filesystem]\nhide = []\n", nil},
		{"all unknown keys", "a = 1\n[network]\nmode = \"on\"\nb = 2\n", []string{":1:1: unknown key \"a\" (error)", ":4:1: unknown key \"network.b\" (error)"}},
		{"missing paths warn", "[filesystem]\nread = [\"/nonexistent-x\"]\nprotect = [\"/nonexistent-y\"]\n", []string{":2: filesystem.read: /nonexistent-x does not exist on this host (warning)"}},
		{"unenforceable", "[network]\nmode = \"isolated\"\n", []string{"cannot be enforced on this host: no network namespace (warning)"}},
		{"no namespaces", "[filesystem]\nwrite = [\":tmp\"]\nprivate_tmp = false\n[network]\nmode = \"on\"\n[process]\npid_namespace = false\n",
			[]string{"no namespaces (no protect or hide, private_tmp and pid_namespace off, network on): other processes"}},
		{"resolve error", "extends = \"nope\"\n", []string{":1: extends: unknown profile \"nope\" (error)"}},
		{"syntax", "[[x\n", []string{":1:4: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := f.write(t, strings.ReplaceAll(tt.name, " ", "_")+".toml", tt.src)
			got := f.loader().Lint(p, check)
			if len(got) != len(tt.want) {
				t.Fatalf("Lint = %v, want %d problems %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if s := got[i].String(); !strings.HasPrefix(s, p) || !strings.Contains(s, w) {
					t.Errorf("problem %d = %q, want it to start with %s and contain %q", i, s, p, w)
				}
			}
		})
	}
}

func TestKeyLine(t *testing.T) {
	src := []byte("description = \"x\"\n[filesystem]\nread = []\n[network]\n  mode = \"on\"\n[limits]\nnofile=1\n# x.y = 1\n[[x]]\ny = 2\nprocess . setsid = true\n")
	for key, want := range map[string]int{"description": 1, "filesystem": 2, "filesystem.read": 3, "network.mode": 5,
		"limits.nofile": 7, "nope": 1, "x": 9, "x.y": 10, "x.process.setsid": 11} {
		if got := (&File{Name: "f.toml", src: src}).Line(key); got != want {
			t.Errorf("Line(%q) = %d, want %d", key, got, want)
		}
	}
}
