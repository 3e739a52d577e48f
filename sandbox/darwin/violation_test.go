package darwin

import (
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

func TestParseViolation(t *testing.T) {
	tests := []struct {
		line       string
		ok         bool
		proc       string
		pid        int
		op, target string
		kind, path string
	}{
		{"Sandbox: touch(4242) deny(1) file-write-create /private/etc/x", true, "touch", 4242, "file-write-create", "/private/etc/x", sandbox.KindFSWrite, "/private/etc/x"},
		{"2026-12-02 11:00:00.123 kernel[0:1a2b] (Sandbox) Sandbox: cat(77) deny(1) file-read-data /Users/u/.ssh/id_ed25519", true, "cat", 77, "file-read-data", "/Users/u/.ssh/id_ed25519", sandbox.KindFSRead, "/Users/u/.ssh/id_ed25519"},
		{"Sandbox: curl(901) deny(1) network-outbound 93.184.216.34:443", true, "curl", 901, "network-outbound", "93.184.216.34:443", sandbox.KindNetConnect, ""},
		{"Sandbox: ssh(12) deny(1) network-outbound /private/var/run/mDNSResponder", true, "ssh", 12, "network-outbound", "/private/var/run/mDNSResponder", sandbox.KindNetConnect, "/private/var/run/mDNSResponder"},
		{"Sandbox: node(5) deny(1) network-bind 0.0.0.0:3000", true, "node", 5, "network-bind", "0.0.0.0:3000", sandbox.KindNetBind, ""},
		{"Sandbox: python3.12(31) deny(1) mach-lookup com.apple.coreservices.launchservicesd", true, "python3.12", 31, "mach-lookup", "com.apple.coreservices.launchservicesd", sandbox.KindOther, "mach-lookup com.apple.coreservices.launchservicesd"},
		{"Sandbox: Google Chrome Helper(8) deny(1) sysctl-read kern.bootargs", true, "Google Chrome Helper", 8, "sysctl-read", "kern.bootargs", sandbox.KindOther, "sysctl-read kern.bootargs"},
		{"Sandbox: mv(3) deny(1) file-write-unlink /Users/u/proj/.git", true, "mv", 3, "file-write-unlink", "/Users/u/proj/.git", sandbox.KindFSWrite, "/Users/u/proj/.git"},
		{"Sandbox: a(b)(9) deny(1) file-read-data /x y/z", true, "a(b)", 9, "file-read-data", "/x y/z", sandbox.KindFSRead, "/x y/z"},
		{"Sandbox: bash(1) deny(1) process-exec /opt/bin/tool", true, "bash", 1, "process-exec", "/opt/bin/tool", sandbox.KindFSRead, "/opt/bin/tool"},
		{"Sandbox: ln(2) deny(1) file-link /Users/u/proj/.git/config", true, "ln", 2, "file-link", "/Users/u/proj/.git/config", sandbox.KindFSWrite, "/Users/u/proj/.git/config"},
		{"touch: /private/etc/x: Operation not permitted", false, "", 0, "", "", "", ""},
		{"Sandbox: touch(x) deny(1) file-write-create /a", false, "", 0, "", "", "", ""},
		{"", false, "", 0, "", "", "", ""},
	}
	for _, tt := range tests {
		v, ok := ParseViolation(tt.line)
		if ok != tt.ok {
			t.Errorf("%q: ok = %v", tt.line, ok)
			continue
		}
		if !ok {
			continue
		}
		if v.Process != tt.proc || v.PID != tt.pid || v.Operation != tt.op || v.Target != tt.target {
			t.Errorf("%q: got %+v", tt.line, v)
		}
		d := v.Denial(tt.line)
		if d.Kind != tt.kind || d.Path != tt.path || d.Evidence != tt.line {
			t.Errorf("%q: denial %+v, want %s %q", tt.line, d, tt.kind, tt.path)
		}
	}
}

func TestDenials(t *testing.T) {
	log := "noise\n" +
		"Sandbox: touch(10) deny(1) file-write-create /private/etc/x\n" +
		"Sandbox: touch(10) deny(1) file-write-create /private/etc/x\n" +
		"Sandbox: other(99) deny(1) file-write-create /private/etc/y\n" +
		"Sandbox: curl(11) deny(1) network-outbound 1.1.1.1:443\n"
	all := Denials(log, nil)
	if len(all) != 3 {
		t.Errorf("all: %v", all)
	}
	mine := Denials(log, map[int]bool{10: true, 11: true})
	if len(mine) != 2 || mine[0].Path != "/private/etc/x" || mine[1].Kind != sandbox.KindNetConnect {
		t.Errorf("filtered: %v", mine)
	}
}
