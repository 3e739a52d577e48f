//go:build unix

package owndir

import (
	"os"
	"path/filepath"
	"testing"
)

// Open takes what Check takes, and no link in place of the directory.
func TestOpen(t *testing.T) {
	cases := dirCases(t)
	private := cases[0].dir
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	if err := Check(link); err != nil {
		t.Fatalf("Check follows a link to %s: %v", private, err)
	}
	for _, tc := range append(cases, dirCase{link, false}) {
		d, err := Open(tc.dir)
		if (err == nil) != tc.ok {
			t.Errorf("Open(%s) = %v, want ok %v", tc.dir, err, tc.ok)
		}
		if d != nil {
			d.Close()
		}
	}
}
