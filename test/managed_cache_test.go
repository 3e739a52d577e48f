package test

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// poisonCache rewrites every cache entry under root that holds old into
// one holding repl (same length), with its checksum made right again:
// what a user can do to the cache in their own home, since an entry is
// checksummed (SHA-256 of what precedes it) but not signed. It returns
// how many entries it rewrote.
func poisonCache(t *testing.T, root, old, repl string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) < sha256.Size {
			return err
		}
		body := b[:len(b)-sha256.Size]
		if !bytes.Contains(body, []byte(old)) {
			return nil
		}
		body = bytes.ReplaceAll(body, []byte(old), []byte(repl))
		sum := sha256.Sum256(body)
		n++
		return os.WriteFile(p, append(body, sum[:]...), 0o600)
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return n
}

// managedCacheFixture is a gate fixture whose system layer etc holds
// rules, first unmanaged; manage turns it into a managed layer.
func managedCacheFixture(t *testing.T, rules string) (gateFixture, string) {
	t.Helper()
	requireFeature(t, os.Geteuid() == 0, "root (a managed layer must be owned by root)")
	f := newGateFixture(t, "")
	etc := filepath.Join(f.dir, "etc")
	if err := os.MkdirAll(filepath.Join(etc, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{f.dir, etc, filepath.Join(etc, "rules")} {
		os.Chmod(d, 0o755)
	}
	mustWrite(t, filepath.Join(etc, "rules", "managed.rules"), rules)
	return f, etc
}

func (f gateFixture) gatedexec(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(gatedexecBin, args...)
	cmd.Dir, cmd.Env = f.ws, f.env
	out, err := cmd.CombinedOutput()
	return string(out), exitOf(t, err)
}

// The compiled-rules cache is the user's: an entry seeded while the
// system layer was not managed (same files, same key) and then edited to
// drop the managed forbidden rule must not decide for the managed layer.
func TestManagedRulesIgnoreAForgedCacheEntry(t *testing.T) {
	f, etc := managedCacheFixture(t, `prefix_rule(pattern=["printf"], decision="forbidden")`+"\n")
	if out, _ := f.gatedexec(t, "check", "--json", "--", "printf", "hi"); !strings.Contains(out, `"decision":"forbidden"`) {
		t.Fatalf("seeding run: %s", out)
	}
	if poisonCache(t, filepath.Join(f.dir, "home", ".cache"), "printf", "prinxf") == 0 {
		t.Fatal("no rules cache entry was written to forge")
	}
	mustWrite(t, filepath.Join(etc, "config.toml"), "managed = true\naudit_log = \""+filepath.Join(f.dir, "managed.jsonl")+"\"\n")
	if out, _ := f.gatedexec(t, "check", "--json", "--", "printf", "hi"); !strings.Contains(out, `"decision":"forbidden"`) {
		t.Errorf("check under the managed layer with a forged cache: %s", out)
	}
	if out, code := f.gatedexec(t, "run", "--approver", "deny", "--", "printf", "hi"); code != 77 {
		t.Errorf("run of a managed-forbidden command with a forged cache: exit %d, want 77:\n%s", code, out)
	}
}
