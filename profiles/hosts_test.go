package profiles

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

func TestHosts(t *testing.T) {
	f := newFixture(t)
	f.write(t, "user/net.toml", `extends = "workspace-net"
[network]
allow_hosts = [":rubygems", "git.corp", "*.mirror.test"]
deny_hosts = ["bad.mirror.test"]
connect_to = ["git.corp=10.1.2.3", "x.mirror.test:443=127.0.0.1:8443"]
`)
	p, err := f.loader().Resolve("net")
	if err != nil {
		t.Fatal(err)
	}
	if p.Network != sandbox.NetworkProxy {
		t.Errorf("mode %q, want proxy from workspace-net", p.Network)
	}
	want := map[string]egress.Decision{"rubygems.org": egress.Allow, "index.rubygems.org": egress.Allow, "git.corp": egress.Allow,
		"a.mirror.test": egress.Allow, "bad.mirror.test": egress.Deny, "registry.npmjs.org": egress.Deny, "mirror.test": egress.Deny}
	for host, d := range want {
		if got, _ := p.Hosts.Judge(host); got != d {
			t.Errorf("Judge(%s) = %v, want %v", host, got, d)
		}
	}
	for _, r := range p.Hosts.Rules {
		wantPrivate := r.Pattern == "git.corp"
		if r.Private != wantPrivate {
			t.Errorf("rule %s: private %v, want %v (only an exact name of allow_hosts)", r.Pattern, r.Private, wantPrivate)
		}
		if !strings.Contains(r.Source, "net.toml:") {
			t.Errorf("rule %s: source %q does not name the file and line", r.Pattern, r.Source)
		}
	}
	if len(p.Hosts.Pins) != 2 || p.Hosts.Pins[1].String() != "x.mirror.test:443=127.0.0.1:8443" {
		t.Errorf("pins %v", p.Hosts.Pins)
	}
}

func TestHostsErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		line int
		msg  string
	}{
		{"[network]\nmode = \"proxy\"\nallow_hosts = [\n  \"ok.test\",\n  \"*.com\",\n]\n", 5, "at least two labels"},
		{"[network]\nmode = \"proxy\"\ndeny_hosts = [\"a b\"]\n", 3, "want a host name"},
		// The element as written, escapes and all.
		{"[network]\nmode = \"proxy\"\ndeny_hosts = [\n  \"ok.test\", # \"a b\"\n  \"a\\u0020b\",\n]\n", 5, "want a host name"},
		{"[network]\nmode = \"proxy\"\nallow_hosts = [\":nope\"]\n", 3, "unknown preset"},
		{"[network]\nmode = \"proxy\"\nconnect_to = [\"h.test=name\"]\n", 3, "not an IP address"},
		{"[network]\nallow_hosts = [\"a.test\"]\n", 2, "only with network.mode = \"proxy\""},
		{"[network]\nmode = \"socks\"\n", 2, "want \"off\""},
	} {
		f := newFixture(t)
		path := f.write(t, "user/p.toml", c.src)
		_, err := f.loader().Resolve("p")
		var pe *Error
		if !errors.As(err, &pe) || pe.File != path || pe.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v; want %s:%d and %q", c.src, err, path, c.line, c.msg)
		}
	}
}
