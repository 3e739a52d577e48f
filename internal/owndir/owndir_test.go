package owndir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		// Mkdir's mode passes through the umask; set it exactly.
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		dir string
		ok  bool
	}{
		{mk("private", 0o700), true},
		{mk("readable", 0o755), true},
		{mk("group-writable", 0o770), false},
		{mk("world-writable", 0o777), false},
		{file, false},
		{filepath.Join(base, "missing"), false},
	}
	// Root can give a directory away; others cannot make one not theirs.
	if os.Geteuid() == 0 {
		other := mk("other-owner", 0o700)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			dir string
			ok  bool
		}{other, false})
	}
	for _, tc := range cases {
		if err := Check(tc.dir); (err == nil) != tc.ok {
			t.Errorf("Check(%s) = %v, want ok %v", tc.dir, err, tc.ok)
		}
	}
}
