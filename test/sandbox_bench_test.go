package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchRun runs argv b.N times; whole-process wall time is the figure.
func benchRun(b *testing.B, argv ...string) {
	b.Helper()
	if _, err := exec.LookPath(argv[0]); err != nil {
		b.Skipf("%s not installed", argv[0])
	}
	for b.Loop() {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
}

// BenchmarkSandboxTrue compares `gatedexec sandbox -- /bin/true` with bare
// /bin/true and bwrap under an equivalent policy (DESIGN §9).
func BenchmarkSandboxTrue(b *testing.B) {
	ws := b.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		b.Fatal(err)
	}
	nons := filepath.Join(ws, "nons.toml")
	if err := os.WriteFile(nons, []byte("extends = \"workspace-write\"\n[filesystem]\nprotect = []\nhide = []\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	git := filepath.Join(ws, ".git")
	b.Run("bare", func(b *testing.B) { benchRun(b, "/bin/true") })
	b.Run("gatedexec-no-namespaces", func(b *testing.B) {
		benchRun(b, gatedexecBin, "sandbox", "-p", nons, "-C", ws, "-w", ws, "--", "/bin/true")
	})
	b.Run("gatedexec-workspace-write", func(b *testing.B) {
		benchRun(b, gatedexecBin, "sandbox", "-p", "workspace-write", "-C", ws, "-w", ws, "--", "/bin/true")
	})
	b.Run("bwrap", func(b *testing.B) {
		benchRun(b, "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--bind", ws, ws, "--unshare-net", "--", "/bin/true")
	})
	b.Run("bwrap-protect-git", func(b *testing.B) {
		benchRun(b, "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--bind", ws, ws, "--ro-bind", git, git, "--unshare-net", "--", "/bin/true")
	})
}
