//go:build linux

package linux

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

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

// TestSocketMounts covers a listening socket outside the profile's reach
// with /dev/null, leaves one the profile lets the command reach, and
// fails when the socket table cannot be read: a run without the table
// would have every host daemon in reach.
func TestSocketMounts(t *testing.T) {
	dir := t.TempDir()
	covered, allowed := filepath.Join(dir, "daemon.sock"), filepath.Join(dir, "allowed.sock")
	for _, path := range []string{covered, allowed} {
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
	}
	table := filepath.Join(dir, "unix")
	lines := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 11 " + covered + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 12 " + allowed + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 13 @abstract\n"
	if err := os.WriteFile(table, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Profile{ReadAll: true, Sockets: []string{allowed}}
	ops, err := socketMounts(p, nil, table)
	if err != nil {
		t.Fatal(err)
	}
	if want := []mountOp{{Kind: mountNullFile, Path: covered}}; !slices.Equal(ops, want) {
		t.Errorf("socketMounts = %+v, want %+v", ops, want)
	}
	if ops, err := socketMounts(p, nil, filepath.Join(dir, "missing")); err == nil {
		t.Errorf("an unreadable socket table gave %+v and no error", ops)
	}
}
