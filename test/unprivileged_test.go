package test

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// nobody is the unprivileged user the suite switches to when run as root.
const nobody = 65534

// unprivileged returns a fixture whose sandboxed commands run as an
// unprivileged user: as nobody when the tests run as root (with copies of
// gatedexec and the probe it can execute, and the fixture chowned to it),
// else as the current user. Without root the backend must take a user
// namespace for its mount and network namespaces, a path root never uses.
func unprivileged(t *testing.T, probe string) (fixture, string) {
	t.Helper()
	f := newFixture(t)
	if os.Geteuid() != 0 {
		return f, probe
	}
	base := filepath.Dir(f.ws)
	bin := filepath.Join(base, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	f.bin = filepath.Join(bin, "gatedexec")
	copyExec(t, gatedexecBin, f.bin)
	probe2 := filepath.Join(bin, "probe")
	copyExec(t, probe, probe2)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{f.ws, f.outside, f.home} {
		err := filepath.Walk(d, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobody, nobody)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	f.cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	return f, probe2
}

func copyExec(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEscapeUnprivileged runs the namespace-dependent attacks, each beside
// its positive control, without root.
func TestEscapeUnprivileged(t *testing.T) {
	h := doctor(t)
	requireFeature(t, h.Host.LandlockABI > 0, "landlock")
	requireFeature(t, h.Host.UserNS && h.Host.MountNS, "user and mount namespaces")
	f, probe := unprivileged(t, buildProbe(t))
	isolated := filepath.Join(f.home, "isolated.toml")
	mustWrite(t, isolated, "extends = \"workspace-write\"\n[network]\nmode = \"isolated\"\n")
	if f.cred != nil {
		os.Lchown(isolated, nobody, nobody)
	}
	config := filepath.Join(f.ws, ".git", "config")
	before := readFile(t, config)

	t.Run("identity", func(t *testing.T) {
		out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "id -u; grep CapEff /proc/self/status")
		want := strconv.Itoa(os.Geteuid())
		if f.cred != nil {
			want = strconv.Itoa(nobody)
		}
		if code != 0 || !strings.HasPrefix(out, want+"\n") || !strings.Contains(out, "CapEff:\t0000000000000000") {
			t.Errorf("want uid %s and no capabilities, got exit %d:\n%s", want, code, out)
		}
	})
	t.Run("workspace-write-control", func(t *testing.T) {
		out, code := f.sandboxed(t, "workspace-write", probe, "write", filepath.Join(f.ws, "new"))
		expectProbe(t, out, code, true)
	})
	t.Run("outside-write", func(t *testing.T) {
		out, code := f.sandboxed(t, "workspace-write", probe, "write", filepath.Join(f.outside, "victim"))
		expectProbe(t, out, code, false)
		if got := readFile(t, filepath.Join(f.outside, "victim")); got != "original\n" {
			t.Errorf("victim = %q", got)
		}
	})
	t.Run("protect", func(t *testing.T) {
		out, code := f.sandboxed(t, "workspace-write", probe, "write", config)
		expectProbe(t, out, code, false)
		if got := readFile(t, config); got != before {
			t.Errorf(".git/config changed to %q", got)
		}
		out, code = f.sandboxed(t, "workspace-write", "sh", "-c", "mv .git .git-old")
		if _, err := os.Stat(filepath.Join(f.ws, ".git-old")); err == nil || code == 0 {
			t.Errorf(".git was moved aside (exit %d):\n%s", code, out)
		}
	})
	t.Run("protect-control", func(t *testing.T) {
		out, code := f.sandboxed(t, "workspace-write", probe, "write", filepath.Join(f.ws, ".git", "description"))
		expectProbe(t, out, code, true)
	})
	t.Run("hide", func(t *testing.T) {
		out, code := f.sandboxed(t, "workspace-write", probe, "read", f.secret)
		expectProbe(t, out, code, false)
		if strings.Contains(out, "SECRET") {
			t.Errorf("secret leaked:\n%s", out)
		}
	})
	t.Run("isolated-network", func(t *testing.T) {
		out, code := f.sandboxed(t, isolated, "sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")
		if code != 0 || strings.TrimSpace(out) != "lo" {
			t.Errorf("want only lo in the isolated network, got exit %d:\n%s", code, out)
		}
		out, code = f.sandboxed(t, isolated, probe, "loopback")
		expectProbe(t, out, code, true)
	})
}
