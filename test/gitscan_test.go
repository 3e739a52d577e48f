package test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// expectTampered asserts that a run exited 0 and reported want (absolute
// paths) in its result's tampered list and in a warning line each.
func expectTampered(t *testing.T, out jsonRun, code int, want ...string) {
	t.Helper()
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out.stdout, out.stderr)
	}
	for _, w := range want {
		if !slices.Contains(out.result.Tampered, w) {
			t.Errorf("tampered = %q, want %s in it", out.result.Tampered, w)
		}
		if !strings.Contains(out.stderr, "gatedexec: warning: the command created or changed "+w) {
			t.Errorf("stderr does not name %s:\n%s", w, out.stderr)
		}
	}
}

// TestGitScanBareRepository: a bare repository made in the workspace,
// which git 2.39 would use for `git status` run in it, is reported, and
// so is a change to one that was there before.
func TestGitScanBareRepository(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			out, code := f.sandboxedJSON(t, "workspace-write", "sh", "-c",
				`mkdir docs && git init -q --bare docs && git -C docs config core.bare false && `+
					`git -C docs config core.worktree "$PWD" && git -C docs config core.fsmonitor "echo PWNED >&2; false"`)
			expectTampered(t, out, code, filepath.Join(f.ws, "docs"))
			out, code = f.sandboxedJSON(t, "workspace-write", "sh", "-c", `git -C docs config core.fsmonitor "touch PWNED2"`)
			expectTampered(t, out, code, filepath.Join(f.ws, "docs", "config"))
			out, code = f.sandboxedJSON(t, "workspace-write", "sh", "-c", "echo x > a && git add a && echo ok")
			if code != 0 || len(out.result.Tampered) != 0 {
				t.Errorf("control: an ordinary run: exit %d, tampered %q:\n%s", code, out.result.Tampered, out.stderr)
			}
			if _, err := os.Stat(filepath.Join(f.ws, "docs", "config")); err != nil {
				t.Errorf("the bare repository was removed: %v", err)
			}
		})
	}
}

// TestGitScanUnlistable: a repository in a directory the caller cannot
// list but git can go through (mode 311) is found by root, and reported
// as not scanned for everyone else, instead of being skipped unseen.
func TestGitScanUnlistable(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			d := filepath.Join(f.ws, "d")
			t.Cleanup(func() { os.Chmod(d, 0o755) })
			out, code := f.sandboxedJSON(t, "workspace-write", "sh", "-c",
				`mkdir d && git init -q d/r && git -C d/r config core.fsmonitor "echo PWNED >&2; false" && chmod 311 d`)
			if c.name == "root" {
				expectTampered(t, out, code, filepath.Join(d, "r", ".git"))
				return
			}
			expectTampered(t, out, code, d)
			if !strings.Contains(out.stderr, "could not scan") {
				t.Errorf("the warning does not say %s could not be scanned:\n%s", d, out.stderr)
			}
			// Reported once, it still hides what a later run changes
			// below it: reported again, on every run.
			out, code = f.sandboxedJSON(t, "workspace-write", "sh", "-c",
				`git -C d/r config core.fsmonitor "echo PWNED2 >&2; false"`)
			expectTampered(t, out, code, d)
		})
	}
}

// TestGitScanSlashSubmodule: the git dir of a submodule whose name holds
// a slash (modules/vendor/lib, git's default for `git submodule add URL
// vendor/lib`) is as read-only as any other submodule's.
func TestGitScanSlashSubmodule(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			src := filepath.Join(filepath.Dir(f.ws), "lib-src")
			gitAs(t, f, "init", "-q", src)
			gitAs(t, f, "-C", src, "commit", "-q", "--allow-empty", "-m", "lib")
			gitAs(t, f, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "vendor/lib")
			gitdir := filepath.Join(f.ws, ".git", "modules", "vendor", "lib")
			config := filepath.Join(gitdir, "config")
			before := readFile(t, config)
			for _, attack := range []string{
				`git config -f .git/modules/vendor/lib/config core.fsmonitor "touch PWNED"`,
				`echo "#!/bin/sh" > .git/modules/vendor/lib/hooks/post-checkout`,
				`git -C vendor/lib config core.fsmonitor "touch PWNED"`,
			} {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", attack)
				if code == 0 || readFile(t, config) != before {
					t.Errorf("%s: exit %d, config now %q:\n%s", attack, code, readFile(t, config), out)
				}
			}
			if _, err := os.Lstat(filepath.Join(gitdir, "hooks", "post-checkout")); err == nil {
				t.Errorf("a hook was written into the submodule's git dir")
			}
			out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "git -C vendor/lib status --short && echo ok")
			if code != 0 || !strings.Contains(out, "ok") {
				t.Errorf("control: git in the submodule: exit %d:\n%s", code, out)
			}
		})
	}
}

// TestGitScanLinkedHook: a hook that links to a script in the workspace
// (.git/hooks/pre-commit -> ../../scripts/pre-commit.sh) keeps that
// script read-only, and one that links to a missing script has the script
// reported when the command makes it.
func TestGitScanLinkedHook(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			mkdirAs(t, f, filepath.Join(f.ws, "scripts"))
			script := filepath.Join(f.ws, "scripts", "pre-commit.sh")
			writeAs(t, f, script, "#!/bin/sh\nexit 0\n")
			os.Chmod(script, 0o755)
			for hook, target := range map[string]string{"pre-commit": "pre-commit.sh", "pre-push": "pre-push.sh"} {
				l := filepath.Join(f.ws, ".git", "hooks", hook)
				if err := os.Symlink("../../scripts/"+target, l); err != nil {
					t.Fatal(err)
				}
				if f.cred != nil {
					os.Lchown(l, int(f.cred.Uid), int(f.cred.Gid))
				}
			}
			for _, attack := range []string{
				"echo 'touch PWNED' >> scripts/pre-commit.sh",
				"rm -f scripts/pre-commit.sh && echo 'touch PWNED' > scripts/pre-commit.sh",
				"mv scripts scripts.old && mkdir scripts && echo 'touch PWNED' > scripts/pre-commit.sh",
			} {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", attack)
				if got := readFile(t, script); code == 0 || got != "#!/bin/sh\nexit 0\n" {
					t.Errorf("%s: exit %d, the hook's script now %q:\n%s", attack, code, got, out)
				}
			}
			out, code := f.sandboxedJSON(t, "workspace-write", "sh", "-c", "printf '#!/bin/sh\\ntouch PWNED\\n' > scripts/pre-push.sh")
			expectTampered(t, out, code, filepath.Join(f.ws, "scripts", "pre-push.sh"))
			out2, code := f.sandboxed(t, "workspace-write", "sh", "-c", "echo x > a && git add a && git commit -q -m a && echo committed")
			if code != 0 || !strings.Contains(out2, "committed") {
				t.Errorf("control: a commit running the linked hook: exit %d:\n%s", code, out2)
			}
		})
	}
}

// TestAgentConfigProtected: the settings from which the host's agents
// and editors run commands (.claude/settings.json with its hooks,
// .mcp.json) are read-only to the command where they exist; where they do
// not, nothing is made for them, and the command may make them, which is
// reported. With the workspace at the home directory, the shell start-up
// files and ~/.gitconfig are read-only too.
func TestAgentConfigProtected(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			settings := filepath.Join(f.ws, ".claude", "settings.json")
			mkdirAs(t, f, filepath.Dir(settings))
			const hook = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"gatedexec hook"}]}]}}` + "\n"
			writeAs(t, f, settings, hook)
			writeAs(t, f, filepath.Join(f.ws, ".mcp.json"), "{}\n")
			for _, attack := range []string{
				`echo '{}' > .claude/settings.json`,
				`rm -rf .claude`,
				`mv .claude .claude.old && mkdir .claude && echo '{}' > .claude/settings.json`,
				`echo '{"mcpServers":{"x":{"command":"touch PWNED"}}}' > .mcp.json`,
			} {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", attack)
				if got := readFile(t, settings); code == 0 || got != hook || readFile(t, filepath.Join(f.ws, ".mcp.json")) != "{}\n" {
					t.Errorf("%s: exit %d, settings now %q:\n%s", attack, code, got, out)
				}
			}
			// Missing ones: not made by a run, made by the command and reported.
			out, code := f.sandboxedJSON(t, "workspace-write", "true")
			if code != 0 || len(out.result.Tampered) != 0 {
				t.Errorf("control: true: exit %d, tampered %q:\n%s", code, out.result.Tampered, out.stderr)
			}
			for _, d := range []string{".vscode", ".codex", ".idea"} {
				if _, err := os.Lstat(filepath.Join(f.ws, d)); err == nil {
					t.Errorf("a run left %s in the workspace", d)
				}
			}
			out, code = f.sandboxedJSON(t, "workspace-write", "sh", "-c",
				`mkdir .vscode && echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"},"command":"touch PWNED"}]}' > .vscode/tasks.json`)
			expectTampered(t, out, code, filepath.Join(f.ws, ".vscode"))
			if !strings.Contains(out.stderr, "agents, editors or shells") {
				t.Errorf("the warning does not say what runs .vscode:\n%s", out.stderr)
			}
			// The workspace at the home directory.
			for _, rc := range []string{".bashrc", ".gitconfig"} {
				writeAs(t, f, filepath.Join(f.ws, rc), "# mine\n")
			}
			f.env = append(f.env, "HOME="+f.ws)
			for _, attack := range []string{`echo 'touch PWNED' >> .bashrc`, `git config --global core.fsmonitor 'touch PWNED'`} {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", attack)
				for _, rc := range []string{".bashrc", ".gitconfig"} {
					if got := readFile(t, filepath.Join(f.ws, rc)); code == 0 || got != "# mine\n" {
						t.Errorf("%s: exit %d, %s now %q:\n%s", attack, code, rc, got, out)
					}
				}
			}
			out, code = f.sandboxedJSON(t, "workspace-write", "sh", "-c", `echo 'touch PWNED' > .zshenv`)
			expectTampered(t, out, code, filepath.Join(f.ws, ".zshenv"))
		})
	}
}

// TestGitScanFIFO: a FIFO a command leaves where git looks for a file
// (`.git/config.worktree`, which workspace-write lets it make) is
// reported, and the run ends: the scan after the run waited on its open
// for a writer before, and held gatedexec past its command's end.
func TestGitScanFIFO(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			out, code := f.sandboxedJSON(t, "workspace-write", "sh", "-c", "mkfifo .git/config.worktree")
			expectTampered(t, out, code, filepath.Join(f.ws, ".git", "config.worktree"))
		})
	}
}
