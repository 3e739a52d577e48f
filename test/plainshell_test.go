//go:build linux

package test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShellPlainCommandSkipsBash: a --shell script that is one plain
// command runs without bash, in the sandbox, with the environment bash
// would have given it; anything bash would treat otherwise runs with
// bash. A bash first in PATH that says it ran tells them apart (gatedexec
// looks bash up in the command's PATH); it is an ELF program, since a
// bash that is a script is never skipped.
func TestShellPlainCommandSkipsBash(t *testing.T) {
	requireFeature(t, doctor(t).Host.LandlockABI > 0, "landlock")
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	f := newGateFixture(t, `prefix_rule(pattern=["env"], decision="allow")
prefix_rule(pattern=["cat"], decision="allow")
prefix_rule(pattern=["sub/../tool"], decision="allow")
prefix_rule(pattern=["denied"], decision="allow")
prefix_rule(pattern=[`+"\""+bash+"\""+`, "-c"], decision="allow")
`)
	// In the workspace: a bash in the host's /tmp, which the command's
	// private /tmp hides, is never skipped.
	fake := filepath.Join(f.ws, "fakebin")
	if err := os.Mkdir(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile(buildTestdata(t, "fakebash"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "bash"), prog, 0o755); err != nil {
		t.Fatal(err)
	}
	env := slices.DeleteFunc(slices.Clone(f.env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "PATH" || name == "OLDPWD" || name == "BASH_ENV"
	})
	env = append(env, "PATH="+fake+":/usr/bin:/bin")
	run := func(env []string, args ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(gatedexecBin, append([]string{"run", "-r", f.rules, "-p", "workspace-write"}, args...)...)
		cmd.Env, cmd.Dir = env, f.ws
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("gatedexec run %q: %v\n%s", args, err, errb.String())
		}
		return out.String(), errb.String()
	}
	sorted := func(s string) []string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		slices.Sort(lines)
		return lines
	}

	plain, stderr := run(env, "--shell", "--", "env")
	if strings.Contains(stderr, "BASH-RAN") {
		t.Fatalf("the plain script ran through bash:\n%s", stderr)
	}
	// The same program started by bash itself, in the same sandbox.
	viaBash, stderr := run(env, "--", bash, "-c", "env")
	if strings.Contains(stderr, "BASH-RAN") {
		t.Fatalf("the fake bash ran for an argv naming the real one:\n%s", stderr)
	}
	if got, want := sorted(plain), sorted(viaBash); !slices.Equal(got, want) {
		t.Errorf("environment without bash\n%q\nwith bash\n%q", got, want)
	}

	// An OLDPWD in the host's /tmp that the command's private /tmp shows
	// nothing of, as the shell that started an agent often leaves it:
	// bash passes none on, and neither does the run without bash.
	left, err := os.MkdirTemp("/tmp", "gatedexec-oldpwd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(left) })
	withOld := append(slices.Clone(env), "OLDPWD="+left)
	plain, stderr = run(withOld, "--shell", "--", "env")
	if strings.Contains(stderr, "BASH-RAN") {
		t.Fatalf("an OLDPWD hidden by the private /tmp: the plain script ran through bash:\n%s", stderr)
	}
	viaBash, _ = run(withOld, "--", bash, "-c", "env")
	if got, want := sorted(plain), sorted(viaBash); !slices.Equal(got, want) || strings.Contains(plain, "OLDPWD=") {
		t.Errorf("an OLDPWD hidden by the private /tmp: environment without bash\n%q\nwith bash\n%q", got, want)
	}

	// A relative name is the kernel's to resolve from the working
	// directory, as bash leaves it: sub/../tool goes through the link.
	other := filepath.Join(f.ws, "other")
	for path, says := range map[string]string{filepath.Join(other, "sub", "x"): "", filepath.Join(other, "tool"): "other", filepath.Join(f.ws, "tool"): "workspace"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+says+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(other, "sub"), filepath.Join(f.ws, "sub")); err != nil {
		t.Fatal(err)
	}
	out, stderr := run(env, "--shell", "--", "sub/../tool")
	if strings.Contains(stderr, "BASH-RAN") || strings.TrimSpace(out) != "other" {
		t.Errorf("sub/../tool: %q, stderr %q; want other's tool, without bash", out, stderr)
	}

	// A program the profile's Landlock rules do not let it execute: the
	// exec fails in the sandbox, and bash runs the script instead, as it
	// would have from the start, with its message, status and denial.
	// Outside /tmp, which the sandbox shows otherwise.
	outside, err := os.MkdirTemp("/var/tmp", "gatedexec-plain-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	if err := os.WriteFile(filepath.Join(outside, "denied"), []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	narrow := filepath.Join(f.dir, "narrow.toml")
	if err := os.WriteFile(narrow, []byte("extends = \"workspace-write\"\n[filesystem]\nread = [\"/usr\", \"/lib\", \"/lib64\", \"/bin\", \"/etc\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gatedexecBin, "run", "-r", f.rules, "-p", narrow, "--json", "--shell", "--", "denied")
	cmd.Env, cmd.Dir = append(slices.Clone(env[:len(env)-1]), "PATH="+fake+":"+outside+":/usr/bin:/bin"), f.ws
	var errb strings.Builder
	cmd.Stderr = &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 126 || !strings.Contains(errb.String(), "BASH-RAN") ||
		!strings.Contains(errb.String(), "bash: line 1:") || !strings.Contains(errb.String(), `"denials":[{`) {
		t.Errorf("a program Landlock does not let run: %v\n%s", err, errb.String())
	}

	for _, tt := range []struct {
		name string
		env  []string
		args []string
	}{
		{"a script that is not one plain command", env, []string{"--shell", "--", "env | cat"}},
		{"BASH_ENV set", append(slices.Clone(env), "BASH_ENV=/dev/null"), []string{"--shell", "--", "env"}},
		{"an exported function", append(slices.Clone(env), "BASH_FUNC_env%%=() { echo function; }"), []string{"--shell", "--", "env"}},
	} {
		out, stderr := run(tt.env, tt.args...)
		if !strings.Contains(stderr, "BASH-RAN") {
			t.Errorf("%s: ran without bash:\n%s", tt.name, stderr)
		}
		if tt.name == "an exported function" && strings.TrimSpace(out) != "function" {
			t.Errorf("%s: bash did not run the function: %q", tt.name, out)
		}
	}
}
