package owndir

import (
	"os"
	"path/filepath"
	"testing"
)

// dirCase is a path and whether it is a directory only its owner, the
// effective user, can write.
type dirCase struct {
	dir string
	ok  bool
}

// dirCases makes the paths Check and Open are tried on.
func dirCases(t *testing.T) []dirCase {
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
	cases := []dirCase{
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
		cases = append(cases, dirCase{other, false})
	}
	return cases
}

func TestCheck(t *testing.T) {
	for _, tc := range dirCases(t) {
		if err := Check(tc.dir); (err == nil) != tc.ok {
			t.Errorf("Check(%s) = %v, want ok %v", tc.dir, err, tc.ok)
		}
	}
}
