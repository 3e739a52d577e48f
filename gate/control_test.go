package gate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
)

// An exec approver's program and the files it is given, and their
// directories (where an interpreter imports from first), are control
// paths: a command that could rewrite them would approve itself.
func TestApproverFiles(t *testing.T) {
	dir := t.TempDir()
	prog, script := filepath.Join(dir, "approve"), filepath.Join(dir, "approve.py")
	for _, f := range []string{prog, script} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		spec string
		want []string
	}{
		{"exec:" + prog, []string{prog, dir}},
		{"exec:/bin/sh " + script + " --flag " + dir + " " + filepath.Join(dir, "missing"), []string{"/bin/sh", script, "/bin", dir}},
		// A missing program named by path is where it would be created.
		{"exec:" + filepath.Join(dir, "not-yet"), []string{filepath.Join(dir, "not-yet"), dir}},
		{"exec:no-such-approver-on-path", nil},
		{"deny", nil},
	} {
		a, err := approval.ParseApprover(tt.spec, approval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := approverFiles(a); !slices.Equal(got, tt.want) {
			t.Errorf("approverFiles(%s) = %q, want %q", tt.spec, got, tt.want)
		}
	}
}
