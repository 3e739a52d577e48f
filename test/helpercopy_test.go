package test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestHelperCopyProtected: the copy of the sandbox helper a one-shot run
// starts from, kept in the profile cache, is out of a sandboxed
// command's reach even when the cache lies in its workspace: a copy it
// could replace would run, unsandboxed, at the start of the next run.
func TestHelperCopyProtected(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	// The base of the caches must exist for them to be on.
	if err := os.Mkdir(filepath.Join(f.ws, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.env = append(f.env, "XDG_CACHE_HOME="+filepath.Join(f.ws, ".cache"))
	if out, code := f.sandboxed(t, "workspace-write", "true"); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, out)
	}
	copies, err := filepath.Glob(filepath.Join(f.ws, ".cache", "gatedexec", "profiles", "helper-*"))
	if err != nil || len(copies) != 1 {
		t.Fatalf("helper copies in the workspace's cache: %q (%v), want one", copies, err)
	}
	copy := copies[0]
	before, err := os.ReadFile(copy)
	if err != nil {
		t.Fatal(err)
	}
	out, code := f.sandboxed(t, "workspace-write", "sh", "-c",
		`rm -f "$0"; chmod u+w "$0"; echo evil > "$0"; mv "$0" "$0.x"; mv "$(dirname "$0")" "$(dirname "$0").x"; exit 0`, copy)
	if code != 0 {
		t.Fatalf("attack run: exit %d\n%s", code, out)
	}
	after, err := os.ReadFile(copy)
	if err != nil || !bytes.Equal(after, before) {
		t.Errorf("the helper copy after a sandboxed command went at it: %d bytes (%v), want the %d it held\n%s", len(after), err, len(before), out)
	}
	// Positive control: the same command under full-access replaces it,
	// and the next sandboxed run still starts (from a fresh copy or the
	// memfd).
	if out, code := f.sandboxed(t, "full-access", "sh", "-c", `rm -f "$0" && echo evil > "$0" && chmod 500 "$0"`, copy); code != 0 {
		t.Fatalf("control: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(copy); string(b) != "evil\n" {
		t.Fatalf("control: the copy holds %q, want it replaced", b)
	}
	if out, code := f.sandboxed(t, "workspace-write", "true"); code != 0 {
		t.Errorf("a run after the copy was damaged: exit %d\n%s", code, out)
	}
}
