package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin, noexec, rel := filepath.Join(dir, "bin"), filepath.Join(dir, "noexec"), filepath.Join(dir, "rel")
	for _, d := range []string{bin, noexec, rel} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{
		{filepath.Join(bin, "tool"), 0o755}, {filepath.Join(noexec, "data"), 0o644},
		{filepath.Join(rel, "reltool"), 0o755}, {filepath.Join(dir, "here"), 0o755},
	} {
		if err := os.WriteFile(f.path, []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=/nowhere", "X=1", "PATH=" + noexec + ":rel:" + bin}
	for _, tt := range []struct {
		name, dir string
		env       []string
		want      string
		err       error
	}{
		{"tool", "", env, filepath.Join(bin, "tool"), nil},
		{"data", "", env, "", ErrCannotExec},
		{"missing", "", env, "", ErrNotFound},
		{filepath.Join(bin, "tool"), "", env, filepath.Join(bin, "tool"), nil},
		{"./tool", bin, env, filepath.Join(bin, "tool"), nil},
		{"./bin", dir, env, "", ErrCannotExec},
		{"/no/such", "", env, "", ErrNotFound},
		// A relative PATH entry is the command's directory's, not ours.
		{"reltool", dir, env, filepath.Join(rel, "reltool"), nil},
		{"reltool", bin, env, "", ErrNotFound},
		// An empty entry is ".", the command's directory too.
		{"here", dir, []string{"PATH=" + bin + ":"}, filepath.Join(dir, "here"), nil},
		{"here", dir, []string{"PATH=" + bin}, "", ErrNotFound},
		// No PATH at all: the default one.
		{"sh", "", nil, "/usr/bin/sh", nil},
	} {
		got, err := LookPath(tt.name, tt.dir, tt.env)
		if tt.name == "sh" && err == nil && got == "/bin/sh" {
			got = "/usr/bin/sh" // either, on a merged /usr or not
		}
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("LookPath(%q, dir %q) = %q, %v; want %q, %v", tt.name, tt.dir, got, err, tt.want, tt.err)
		}
	}
}
