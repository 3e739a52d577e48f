package test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A managed layer the user cannot read is not an absent one: every run,
// check included, fails with 78 naming the file, rather than running
// without the ceiling. Only root can make a file another user cannot
// read, and switch to that user.
func TestManagedLayerUnreadableByTheUser(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run as root")
		}
		t.Skip("needs root to own the managed layer and run as another user")
	}
	base := t.TempDir()
	etc, home, bin := filepath.Join(base, "etc"), filepath.Join(base, "home"), filepath.Join(base, "bin")
	for _, d := range []string{etc, home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(etc, "config.toml")
	if err := os.WriteFile(config, []byte("managed = true\naudit_log = \"/var/log/gatedexec-test.jsonl\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gx := filepath.Join(bin, "gatedexec")
	copyExec(t, gatedexecBin, gx)
	for _, args := range [][]string{{"check", "--", "true"}, {"run", "--", "true"}} {
		cmd := exec.Command(gx, args...)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GATEDEXEC_SYSTEM_DIR=" + etc}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 78 {
			t.Fatalf("%v: %v, want exit 78:\n%s", args, err, out)
		}
		if !strings.Contains(string(out), config+": permission denied") {
			t.Errorf("%v: the error does not name %s:\n%s", args, config, out)
		}
	}
}
