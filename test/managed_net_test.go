package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// managedNetFixture is a managed layer whose one allowed profile, net,
// reaches allowed.test alone (pinned to the loopback server at hp), with
// user rules userRules.
func managedNetFixture(t *testing.T, hp, userRules string) gateFixture {
	t.Helper()
	f, etc := managedCacheFixture(t, "")
	prof := filepath.Join(etc, "profiles")
	if err := os.MkdirAll(prof, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(prof, "net.toml"), fmt.Sprintf(`extends = "workspace-write"
[network]
mode = "proxy"
allow_hosts = ["allowed.test"]
connect_to = ["allowed.test=127.0.0.1:%s"]
`, hp))
	mustWrite(t, filepath.Join(etc, "config.toml"), "managed = true\nallowed_profiles = [\"net\"]\naudit_log = \""+
		filepath.Join(f.dir, "managed.jsonl")+"\"\n")
	if err := os.MkdirAll(filepath.Dir(f.userRules), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, f.userRules, userRules)
	return f
}

// With allowed_profiles, the managed profile's hosts are the ceiling of
// the network, as its paths are of the filesystem: a user's network_rule
// allowing an address (here the host's loopback, as it could be the cloud
// metadata address) must not open what the managed profile refuses, when
// an escalation to that same host is refused before anyone is asked.
func TestManagedNetworkRuleOfTheUserCannotWidenTheProfile(t *testing.T) {
	requireIsolation(t)
	s := startEgressServers(t)
	hp := port(t, s.http)
	f := managedNetFixture(t, hp, `network_rule(host="127.0.0.1", protocol="http", decision="allow")`+"\n")
	out, _ := f.gatedexec(t, "run", "-p", "net", "--approver", "deny", "--", "curl", "-sS", "-m", "10", "http://allowed.test/ok")
	if !strings.Contains(out, "ok host=allowed.test") {
		t.Fatalf("the managed profile's own host is not reached:\n%s", out)
	}
	out, _ = f.gatedexec(t, "run", "-p", "net", "--approver", "deny", "--", "curl", "-sS", "-m", "10", "--noproxy", "", "-x", "http://127.0.0.1:3128", "http://127.0.0.1:"+hp+"/ok")
	if strings.Contains(out, "ok host=") {
		t.Errorf("a user's network_rule reached the host's loopback through the managed profile:\n%s", out)
	}
	if !strings.Contains(out, "refused:") || !strings.Contains(out, "network_rule") {
		t.Errorf("the refusal of the user's network_rule is not said:\n%s", out)
	}
}

// allow_full_access = false refuses an unrestricted profile whatever its
// name; one protecting (or hiding) a path that does not even exist is
// not unrestricted to the backends, but writes the whole filesystem with
// the network on all the same, and must be refused as full access.
func TestManagedFullAccessRefusedWithATokenProtectPath(t *testing.T) {
	f, etc := managedCacheFixture(t, "")
	mustWrite(t, filepath.Join(etc, "config.toml"), "managed = true\naudit_log = \""+filepath.Join(f.dir, "managed.jsonl")+"\"\n")
	prof := filepath.Join(f.dir, "config", "gatedexec", "profiles")
	if err := os.MkdirAll(prof, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(prof, "wide.toml"), `[filesystem]
read = [":all"]
write = [":all"]
protect = ["/nonexistent-gatedexec-test"]
[network]
mode = "on"
`)
	mustWrite(t, filepath.Join(prof, "slash.toml"), `[filesystem]
read = [":all"]
write = ["/"]
hide = ["/nonexistent-gatedexec-test"]
[network]
mode = "on"
`)
	for _, p := range []string{"wide", "slash"} {
		out, code := f.gatedexec(t, "run", "-p", p, "--approver", "deny", "--", "true")
		if code != 77 || !strings.Contains(out, "allow_full_access") {
			t.Errorf("profile %s (write everything, network on) under allow_full_access = false: exit %d, want 77 naming allow_full_access:\n%s", p, code, out)
		}
	}
}

// A host no rule matches is refused, so a lower layer's prompt
// network_rule for a host the managed profile does not allow is no
// narrowing: it would make the host one approval away, an escalation
// the ceiling refuses before anyone is asked. It may only make a host
// the managed profile allows ask first.
func TestManagedNetworkPromptOfTheUserCannotWidenTheProfile(t *testing.T) {
	requireIsolation(t)
	s := startEgressServers(t)
	hp := port(t, s.http)
	f := managedNetFixture(t, hp, `network_rule(host="127.0.0.1", protocol="http", decision="prompt")`+"\n"+
		`network_rule(host="allowed.test", protocol="http", decision="prompt")`+"\n")
	yes := filepath.Join(f.dir, "yes.sh")
	mustWrite(t, yes, `#!/bin/sh
id=$(sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
printf '{"id":"%s","outcome":"approved"}\n' "$id"
`)
	os.Chmod(yes, 0o755)
	out, _ := f.gatedexec(t, "run", "-p", "net", "--approver", "exec:"+yes, "--", "curl", "-sS", "-m", "10", "--noproxy", "", "-x", "http://127.0.0.1:3128", "http://127.0.0.1:"+hp+"/ok")
	if strings.Contains(out, "ok host=") {
		t.Errorf("a user's prompt network_rule reached the host's loopback through the managed profile:\n%s", out)
	}
	out, _ = f.gatedexec(t, "run", "-p", "net", "--approver", "deny", "--", "curl", "-sS", "-m", "10", "http://allowed.test/ok")
	if strings.Contains(out, "ok host=") {
		t.Errorf("a user's prompt network_rule for a managed host did not ask first:\n%s", out)
	}
}

// An untrusted workspace layer keeps only the rules that make decisions
// stricter; a prompt network_rule for a host nothing allows is looser
// than none (that host is refused, not asked about), so a cloned
// repository cannot make the host's loopback one approval away.
func TestUntrustedWorkspaceNetworkPromptCannotWiden(t *testing.T) {
	requireIsolation(t)
	s := startEgressServers(t)
	hp := port(t, s.http)
	f := newGateFixture(t, "")
	prof := filepath.Join(f.dir, "net.toml")
	mustWrite(t, prof, fmt.Sprintf(`extends = "workspace-write"
[network]
mode = "proxy"
allow_hosts = ["allowed.test"]
connect_to = ["allowed.test=127.0.0.1:%s"]
`, hp))
	if err := os.MkdirAll(filepath.Join(f.ws, ".gatedexec", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(f.ws, ".gatedexec", "rules", "net.rules"), `network_rule(host="127.0.0.1", protocol="http", decision="prompt")`+"\n")
	yes := filepath.Join(f.dir, "yes.sh")
	mustWrite(t, yes, `#!/bin/sh
id=$(sed -n 's/^{"id":"\([0-9a-f]*\)".*/\1/p')
printf '{"id":"%s","outcome":"approved"}\n' "$id"
`)
	os.Chmod(yes, 0o755)
	out, _ := f.gatedexec(t, "run", "-p", prof, "-w", f.ws, "--approver", "exec:"+yes, "--", "curl", "-sS", "-m", "10", "--noproxy", "", "-x", "http://127.0.0.1:3128", "http://127.0.0.1:"+hp+"/ok")
	if strings.Contains(out, "ok host=") {
		t.Errorf("an untrusted workspace's prompt network_rule reached the host's loopback:\n%s", out)
	}
}
