//go:build linux

package linux

import "testing"

func TestUnixSocketPath(t *testing.T) {
	tests := []struct {
		line, want string
		ok         bool
	}{
		{"0000000000000000: 00000002 00000000 00010000 0001 01 12345 /run/a.sock", "/run/a.sock", true},
		{"0000000000000000: 00000002 00000000 00010000 0001 01  1234 /run/a.sock", "/run/a.sock", true},
		{"0000000000000000: 00000002 00000000 00010000 0001 01 12345 /var/tmp/two  spaces.sock", "/var/tmp/two  spaces.sock", true},
		{"0000000000000000: 00000002 00000000 00010000 0001 01 12345  /lead.sock", " /lead.sock", true},
		{"0000000000000000: 00000002 00000000 00010000 0001 01 12345 @abstract", "@abstract", true},
		{"0000000000000000: 00000003 00000000 00000000 0001 03 12345", "", false},
		{"0000000000000000: 00000003 00000000 00000000 0001 03 12345 ", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := unixSocketPath(tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("unixSocketPath(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
