package darwin

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin, noexec := filepath.Join(dir, "bin"), filepath.Join(dir, "noexec")
	for _, d := range []string{bin, noexec} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noexec, "data"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := noexec + ":relative:" + bin
	for _, tt := range []struct {
		name, dir, want string
		err             error
	}{
		{"tool", "", filepath.Join(bin, "tool"), nil},
		{"data", "", "", sandbox.ErrCannotExec},
		{"missing", "", "", sandbox.ErrNotFound},
		{filepath.Join(bin, "tool"), "", filepath.Join(bin, "tool"), nil},
		{"./tool", bin, filepath.Join(bin, "tool"), nil},
		{"./bin", dir, "", sandbox.ErrCannotExec},
		{"/no/such", "", "", sandbox.ErrNotFound},
	} {
		got, err := lookPath(tt.name, path, tt.dir)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("lookPath(%q, dir %q) = %q, %v; want %q, %v", tt.name, tt.dir, got, err, tt.want, tt.err)
		}
	}
	if got := pathOf([]string{"PATH=/a", "X=1", "PATH=/b"}); got != "/b" {
		t.Errorf("pathOf: last PATH wins, got %q", got)
	}
	if got := pathOf(nil); got == "" {
		t.Error("pathOf: want a default PATH")
	}
}

func TestRlimitArgs(t *testing.T) {
	got := rlimitArgs(sandbox.Limits{NoFile: 256, CPU: 60, Timeout: 5})
	if want := []string{"nofile=256", "cpu=60"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := rlimitArgs(sandbox.Limits{}); len(got) != 0 {
		t.Errorf("no limits: got %q", got)
	}
}
