package darwin

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

var update = flag.Bool("update", false, "rewrite testdata/*.sbpl golden files")

const (
	ws   = "/Users/dev/project"
	home = "/Users/dev"
)

var secrets = []string{home + "/.ssh", home + "/.aws", home + "/.gnupg", home + "/.netrc",
	home + "/.git-credentials", home + "/.config/gh", home + "/.kube", home + "/.docker"}

// profiles mirrors the built-ins of DESIGN §5 for a fixed workspace, plus
// custom profiles exercising every generator branch.
func profiles() map[string]*sandbox.Profile {
	readOnly := &sandbox.Profile{Name: "read-only", ReadAll: true, Hide: secrets,
		Network: sandbox.NetworkOff, UnixSockets: true}
	wsWrite := &sandbox.Profile{Name: "workspace-write", ReadAll: true,
		Write:   []string{ws, "/tmp", "/var/folders/xy/T"},
		Protect: []string{ws + "/.git/hooks", ws + "/.git/config", ws + "/.gatedexec"},
		Hide:    secrets, Network: sandbox.NetworkOff, UnixSockets: true}
	netOn := *wsWrite
	netOn.Name, netOn.Network = "net-on", sandbox.NetworkOn
	iso := *wsWrite
	iso.Name, iso.Network, iso.UnixSockets = "isolated", sandbox.NetworkIsolated, false
	noUnix := *readOnly
	noUnix.Name, noUnix.UnixSockets = "unix-deny", false
	proxied := *wsWrite
	proxied.Name, proxied.Network = "proxy", sandbox.NetworkProxy
	return map[string]*sandbox.Profile{
		"read-only":       readOnly,
		"workspace-write": wsWrite,
		"full-access":     {Name: "full-access", Unrestricted: true, ReadAll: true, Network: sandbox.NetworkOn, UnixSockets: true},
		"net-on":          &netOn,
		"isolated":        &iso,
		"unix-deny":       &noUnix,
		"proxy":           &proxied,
		"narrow-read": {Name: "narrow-read", Read: []string{"/usr", "/bin", "/System", ws},
			Write: []string{ws + "/out"}, Network: sandbox.NetworkOff},
		"protect-home": {Name: "protect-home", ReadAll: true, Write: []string{home},
			Protect: []string{home + "/a/b/c"}, Hide: []string{home + "/.ssh"}, Network: sandbox.NetworkOff},
		"weird-paths": {Name: "weird-paths", ReadAll: true, Network: sandbox.NetworkOff,
			Write: []string{
				"/Users/dev/my project", `/Users/dev/q"uote`, "/Users/dev/paren)(allow default)",
				`/Users/dev/back\slash`, "/Users/dev/new\nline", "/Users/dev/ünïcødé/日本",
			},
			Protect: []string{`/Users/dev/my project/")) (allow file-write* (subpath "/`}},
	}
}

// lexicalOnly canonicalises without touching this host's filesystem, so
// golden output does not depend on the machine running the test.
func lexicalOnly(p string) (string, error) { return Lexical(p) }

// generateFor generates p's policy as the runner would, a proxied one
// with a fixed port.
func generateFor(p *sandbox.Profile) (*Policy, error) {
	if p.Network == sandbox.NetworkProxy {
		return GenerateProxied(p, 3128, lexicalOnly)
	}
	return GenerateWith(p, lexicalOnly)
}

func TestGolden(t *testing.T) {
	for name, p := range profiles() {
		t.Run(name, func(t *testing.T) {
			pol, err := generateFor(p)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			b.WriteString(pol.Text)
			for _, a := range pol.Args() {
				fmt.Fprintf(&b, ";; %q\n", a)
			}
			got := b.String()
			file := filepath.Join("testdata", name+".sbpl")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("policy differs from %s (go test -update to accept):\n%s", file, got)
			}
		})
	}
}

func TestPathsOnlyInParams(t *testing.T) {
	for name, p := range profiles() {
		pol, err := generateFor(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{p.Read, p.Write, p.Protect, p.Hide} {
			for _, path := range list {
				if strings.Contains(pol.Text, path) {
					t.Errorf("%s: path %q spliced into policy text", name, path)
				}
				c, _ := Lexical(path)
				found := false
				for _, kv := range pol.Params {
					found = found || kv.Value == c
				}
				if !found {
					t.Errorf("%s: path %q missing from params %v", name, c, pol.Params)
				}
			}
		}
		// Every param the text references is defined, and vice versa.
		for _, kv := range pol.Params {
			if !strings.Contains(pol.Text, fmt.Sprintf("(param %q)", kv.Key)) {
				t.Errorf("%s: param %s defined but unused", name, kv.Key)
			}
		}
		defined := map[string]bool{}
		for _, kv := range pol.Params {
			defined[kv.Key] = true
		}
		for _, m := range regexp.MustCompile(`\(param "([^"]*)"\)`).FindAllStringSubmatch(pol.Text, -1) {
			if !defined[m[1]] {
				t.Errorf("%s: text references undefined param %s", name, m[1])
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	p := profiles()["workspace-write"]
	shuffled := *p
	shuffled.Write = []string{"/tmp", ws, "/var/folders/xy/T", ws}
	a, err := GenerateWith(p, lexicalOnly)
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateWith(&shuffled, lexicalOnly)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != b.Text || strings.Join(a.Args(), "\x00") != strings.Join(b.Args(), "\x00") {
		t.Errorf("order or duplicates changed the policy:\n%s\n%v\n%s\n%v", a.Text, a.Args(), b.Text, b.Args())
	}
}

func TestGenerateErrors(t *testing.T) {
	for name, p := range map[string]*sandbox.Profile{
		"relative": {Write: []string{"rel/path"}},
		"nul":      {ReadAll: true, Hide: []string{"/a\x00b"}},
		"network":  {ReadAll: true, Network: "sometimes"},
	} {
		if pol, err := GenerateWith(p, lexicalOnly); err == nil {
			t.Errorf("%s: want error, got policy\n%s", name, pol.Text)
		}
	}
	if _, err := GenerateWith(nil, lexicalOnly); err == nil {
		t.Error("nil profile: no error")
	}
	if _, err := GenerateWith(profiles()["proxy"], lexicalOnly); err == nil {
		t.Error("proxy mode without the proxy's port: no error")
	}
	if _, err := GenerateProxied(profiles()["proxy"], 0, lexicalOnly); err == nil {
		t.Error("proxy mode with port 0: no error")
	}
}

func TestProtectSemantics(t *testing.T) {
	pol, err := GenerateWith(profiles()["protect-home"], lexicalOnly)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{}
	for _, kv := range pol.Params {
		vals[kv.Value] = kv.Key
	}
	// Every ancestor of the protect and hide paths inside the writable
	// home, the home itself included, must be pinned against rename.
	for _, a := range []string{home, home + "/a", home + "/a/b"} {
		k, ok := vals[a]
		if !ok || !strings.HasPrefix(k, "KEEP_") {
			t.Errorf("ancestor %s not pinned (key %q)", a, k)
		}
	}
	if _, ok := vals["/Users"]; ok {
		t.Error("/Users lies outside the writable tree and should not be pinned")
	}
	s := expr(t, pol.Text)
	// The deny for protect must come after the write allow.
	iw, ip := ruleIndex(s, "allow", "file-write*"), ruleIndex(s, "deny", "file-write*")
	if iw < 0 || ip < 0 || ip < iw {
		t.Errorf("protect deny (%d) must follow write allow (%d)", ip, iw)
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp":            "/private/tmp",
		"/tmp/x/../y":     "/private/tmp/y",
		"/var/folders/ab": "/private/var/folders/ab",
		"/etc/hosts":      "/private/etc/hosts",
		"/tmpfoo":         "/tmpfoo",
		"/Users/a/":       "/Users/a",
	} {
		if got, err := Lexical(in); err != nil || got != want {
			t.Errorf("Lexical(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	dir := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantReal, _ := Lexical(real)
	got, err := HostResolver(filepath.Join(dir, "link", "not", "yet"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(wantReal, "not", "yet"); got != want {
		t.Errorf("HostResolver through symlink to missing path = %q, want %q", got, want)
	}
}

func BenchmarkGenerate(b *testing.B) {
	p := profiles()["workspace-write"]
	for b.Loop() {
		if _, err := GenerateWith(p, lexicalOnly); err != nil {
			b.Fatal(err)
		}
	}
}
