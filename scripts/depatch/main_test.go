package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: every patch applies to go.mod's version of its module; the
// go.mod written replaces each patched module with its patched copy; a
// second run finds everything in place and rewrites nothing.
func TestRun(t *testing.T) {
	t.Chdir("../..")
	out := t.TempDir()
	modfile, err := run(out)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(modfile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(strings.TrimSuffix(modfile, ".mod") + ".sum"); err != nil {
		t.Errorf("no go.sum beside %s: %v", modfile, err)
	}
	for _, p := range patches {
		var dir string
		for _, line := range strings.Split(string(mod), "\n") {
			if rest, ok := strings.CutPrefix(line, "replace "+p.module+" => "); ok {
				dir = rest
			}
		}
		if dir == "" {
			t.Fatalf("%s is not replaced in\n%s", p.module, mod)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.file)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.edits {
			if e.new != "" && !strings.Contains(string(b), e.new) {
				t.Errorf("%s %s lacks %q", p.module, p.file, e.new)
			}
			if !strings.Contains(e.new, e.old) && strings.Contains(string(b), e.old) {
				t.Errorf("%s %s still has %q", p.module, p.file, e.old)
			}
		}
	}
	before := modTimes(t, out)
	again, err := run(out)
	if err != nil || again != modfile {
		t.Fatalf("second run: %s, %v; first %s", again, err, modfile)
	}
	if after := modTimes(t, out); !maps.Equal(before, after) {
		t.Errorf("the second run rewrote files: %v, then %v", before, after)
	}
}

// TestApplyRefuses: an edit whose text is missing or occurs twice fails,
// naming how often it occurs, and leaves the file as it was.
func TestApplyRefuses(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f.go")
	const src = "a b a\n"
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for old, want := range map[string]string{"c": "occurs 0 times", "a": "occurs 2 times"} {
		err := apply(dir, patch{"m", "f.go", []edit{{"b", "B"}, {old, "x"}}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("edit of %q: %v, want %q", old, err, want)
		}
		if b, _ := os.ReadFile(name); string(b) != src {
			t.Errorf("the file became %q", b)
		}
	}
}

func modTimes(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = info.ModTime().UnixNano()
	}
	return m
}
