package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEscapeDirectoryOnStdio: a directory passed as a standard descriptor
// would take the command past every mount of its namespace through
// /proc/self/fd/N/NAME (a hidden key, the host's /tmp, a protected
// .git/config): it is refused before anything runs, on stdin, stdout and
// stderr, for every restricted profile.
func TestEscapeDirectoryOnStdio(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			config := filepath.Join(f.ws, ".git", "config")
			before := readFile(t, config)
			script := "cat /proc/self/fd/%[1]d%[2]s; echo '[alias] x = !id' >> /proc/self/fd/%[1]d%[3]s"
			for _, prof := range restricted {
				for fd := 0; fd <= 2; fd++ {
					root, err := os.Open("/")
					if err != nil {
						t.Fatal(err)
					}
					cmd := f.command("sandbox", "-p", prof, "-C", f.ws, "-w", f.ws, "--", "sh", "-c", fmt.Sprintf(script, fd, f.secret, config))
					var out strings.Builder
					cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, &out, &out
					switch fd {
					case 0:
						cmd.Stdin = root
					case 1:
						cmd.Stdout = root
					case 2:
						cmd.Stderr = root
					}
					code := exitOf(t, cmd.Run())
					root.Close()
					if code != 125 || strings.Contains(out.String(), "SECRET") || readFile(t, config) != before {
						t.Errorf("%s: / on descriptor %d: want exit 125 and nothing read or written, got %d, .git/config changed=%v:\n%s",
							prof, fd, code, readFile(t, config) != before, out.String())
					}
					if fd != 2 && !strings.Contains(out.String(), "pass a file or a pipe") {
						t.Errorf("%s: / on descriptor %d: no reason given:\n%s", prof, fd, out.String())
					}
				}
			}
			// full-access has no sandbox to get past: a directory is the
			// caller's business there.
			root, err := os.Open("/")
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			cmd := f.command("sandbox", "-p", "full-access", "-C", f.ws, "--", "true")
			cmd.Stdin = root
			if code := exitOf(t, cmd.Run()); code != 0 {
				t.Errorf("full-access with / on stdin: exit %d", code)
			}
		})
	}
}

// TestEscapeInheritedStderr: a protected file the caller passes read-only
// on stderr is reopened in the namespace like stdin and stdout, so
// /proc/self/fd/2 cannot reopen it for writing past the read-only mount.
func TestEscapeInheritedStderr(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			config := filepath.Join(f.ws, ".git", "config")
			before := readFile(t, config)
			in, err := os.Open(config)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			cmd := f.command("sandbox", "-p", "workspace-write", "-C", f.ws, "-w", f.ws, "--", "sh", "-c", "echo pwned > /proc/self/fd/2")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, in
			code := exitOf(t, cmd.Run())
			if got := readFile(t, config); got != before || code == 0 {
				t.Errorf(".git/config on stderr: exit %d, content now %q:\n%s", code, got, out.String())
			}
		})
	}
}

// TestEscapeOwnProgram: gatedexec kept in the workspace (bin/ of a
// checkout, as README's MCP example has it) is what the agent's hook and
// MCP settings run outside any sandbox. A command may neither rewrite it,
// nor replace it or the gatedexec-mcp beside it, nor move their directory
// aside, while the rest of the workspace stays writable.
func TestEscapeOwnProgram(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			bin := filepath.Join(f.ws, "tools", "bin")
			mkdirAs(t, f, bin)
			own := filepath.Join(bin, "gatedexec")
			copyExec(t, gatedexecBin, own)
			mcp := filepath.Join(bin, "gatedexec-mcp")
			writeAs(t, f, mcp, "#!/bin/sh\necho mcp\n")
			if f.cred != nil {
				os.Lchown(own, int(f.cred.Uid), int(f.cred.Gid))
			}
			f.bin = own
			before, beforeMCP := readFile(t, own), readFile(t, mcp)
			for _, prof := range restricted {
				for _, script := range []string{
					"printf x >> tools/bin/gatedexec",
					"printf '#!/bin/sh\\n' > tools/bin/new && chmod +x tools/bin/new && mv tools/bin/new tools/bin/gatedexec",
					"printf '#!/bin/sh\\n' > tools/bin/new && mv tools/bin/new tools/bin/gatedexec-mcp",
					"printf x >> tools/bin/gatedexec-mcp",
					"rm -f tools/bin/gatedexec-mcp",
					"mv tools/bin tools/old && mkdir tools/bin && printf '#!/bin/sh\\n' > tools/bin/gatedexec",
					"mv tools tools-old && mkdir -p tools/bin && printf '#!/bin/sh\\n' > tools/bin/gatedexec",
				} {
					out, _ := f.sandboxed(t, prof, "sh", "-c", script)
					if readFile(t, own) != before || readFile(t, mcp) != beforeMCP {
						t.Fatalf("%s: %q changed gatedexec's programs:\n%s", prof, script, out)
					}
				}
			}
			out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "echo fine > tools/bin/notes && cat tools/bin/notes")
			if code != 0 || !strings.Contains(out, "fine") {
				t.Errorf("control: a new file beside the programs: exit %d:\n%s", code, out)
			}
		})
	}
}

// TestEscapeGitdirFile: a .git file a command writes into a directory of
// its workspace makes that directory the workspace of a later run started
// below it; what the file names (a directory outside, "/") must not become
// writable for that run.
func TestEscapeGitdirFile(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			victim := filepath.Join(f.outside, "victim")
			for _, target := range []string{f.outside, "/"} {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "mkdir -p sub && echo 'gitdir: "+target+"' > sub/.git")
				if code != 0 {
					t.Fatalf("writing sub/.git: exit %d:\n%s", code, out)
				}
				cmd := f.command("sandbox", "-p", "workspace-write", "-C", filepath.Join(f.ws, "sub"), "--",
					"sh", "-c", "echo pwned > "+victim+"; echo pwned > "+filepath.Join(f.outside, "new"))
				b, _ := cmd.CombinedOutput()
				if readFile(t, victim) != "original\n" {
					t.Errorf("gitdir: %s: the next run below sub/ wrote outside the workspace:\n%s", target, b)
				}
				if _, err := os.Stat(filepath.Join(f.outside, "new")); err == nil {
					t.Errorf("gitdir: %s: the next run below sub/ created a file outside the workspace:\n%s", target, b)
				}
			}
		})
	}
}

// TestEscapeSymlinkedGitControl: a .git/hooks or .git/config that is a
// symbolic link keeps its target read-only, and the link itself can be
// neither removed nor replaced by a directory or file of the command's,
// which the host's next git would use.
func TestEscapeSymlinkedGitControl(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			base := filepath.Dir(f.ws)
			dotgit := filepath.Join(f.ws, ".git")
			for _, name := range []string{"hooks", "config"} {
				real := filepath.Join(base, name+"-real")
				if err := os.Rename(filepath.Join(dotgit, name), real); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(real, filepath.Join(dotgit, name)); err != nil {
					t.Fatal(err)
				}
			}
			for _, script := range []string{
				"rm .git/hooks && mkdir .git/hooks && printf '#!/bin/sh\\necho PWNED\\n' > .git/hooks/pre-commit",
				"rm .git/config && printf '[core]\\n\\tfsmonitor = echo PWNED\\n' > .git/config",
				"mv .git/config .git/old; printf '[core]\\n\\tfsmonitor = echo PWNED\\n' > .git/config",
				"printf x >> .git/config; printf x > .git/hooks/pre-commit",
			} {
				out, _ := f.sandboxed(t, "workspace-write", "sh", "-c", script)
				for _, name := range []string{"hooks", "config"} {
					if fi, err := os.Lstat(filepath.Join(dotgit, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
						t.Fatalf("%q: .git/%s is no longer the link:\n%s", script, name, out)
					}
				}
				if _, err := os.Stat(filepath.Join(base, "hooks-real", "pre-commit")); err == nil {
					t.Fatalf("%q: wrote a hook into the link's target:\n%s", script, out)
				}
				if strings.Contains(readFile(t, filepath.Join(base, "config-real")), "PWNED") || strings.HasSuffix(readFile(t, filepath.Join(base, "config-real")), "x") {
					t.Fatalf("%q: changed the config the link names:\n%s", script, out)
				}
			}
		})
	}
}

// TestEscapeSymlinkedAgentConfig: an agent's settings file kept elsewhere
// and linked into the workspace (.mcp.json, .claude) can be neither
// rewritten through the link nor replaced by a file of the command's.
func TestEscapeSymlinkedAgentConfig(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			base := filepath.Dir(f.ws)
			real := filepath.Join(base, "mcp-real.json")
			writeAs(t, f, real, "{}\n")
			if err := os.Symlink(real, filepath.Join(f.ws, ".mcp.json")); err != nil {
				t.Fatal(err)
			}
			for _, script := range []string{
				`printf '{"mcpServers":{"x":{"command":"id"}}}' > .mcp.json`,
				`rm .mcp.json; printf '{"mcpServers":{"x":{"command":"id"}}}' > .mcp.json`,
				`mv .mcp.json old.json; printf '{"mcpServers":{"x":{"command":"id"}}}' > .mcp.json`,
			} {
				out, _ := f.sandboxed(t, "workspace-write", "sh", "-c", script)
				if fi, err := os.Lstat(filepath.Join(f.ws, ".mcp.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("%q: .mcp.json is no longer the link:\n%s", script, out)
				}
				if readFile(t, real) != "{}\n" {
					t.Fatalf("%q: rewrote the file the link names:\n%s", script, out)
				}
			}
		})
	}
}

// TestEscapeForgedWorktree: a git dir a command makes in its workspace,
// with a back-pointer to a directory of it and another repository as its
// commondir, gives a later run started there nothing of that repository
// to write.
func TestEscapeForgedWorktree(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			victim := filepath.Join(f.outside, "repo")
			// As the fixture's user, who could write it if it were granted.
			gitAs(t, f, "init", "-q", victim)
			refs := filepath.Join(victim, ".git", "refs", "heads")
			script := "mkdir -p sub fake/objects fake/refs && echo 'ref: refs/heads/main' > fake/HEAD && " +
				"echo " + filepath.Join(victim, ".git") + " > fake/commondir && echo " + filepath.Join(f.ws, "sub", ".git") + " > fake/gitdir && " +
				"echo 'gitdir: " + filepath.Join(f.ws, "fake") + "' > sub/.git"
			if out, code := f.sandboxed(t, "workspace-write", "sh", "-c", script); code != 0 {
				t.Fatalf("forging: exit %d:\n%s", code, out)
			}
			cmd := f.command("sandbox", "-p", "workspace-write", "-C", filepath.Join(f.ws, "sub"), "--",
				"sh", "-c", "echo 0000000000000000000000000000000000000bad > "+filepath.Join(refs, "evil"))
			b, _ := cmd.CombinedOutput()
			if _, err := os.Stat(filepath.Join(refs, "evil")); err == nil {
				t.Errorf("a run below the forged .git wrote another repository's refs:\n%s", b)
			}
		})
	}
}

// TestEscapeOwnProgramLink: gatedexec started through a link in the
// workspace (bin/gatedexec -> ../dist/gatedexec), the path hand-written
// agent settings name: the link can be neither removed nor replaced.
func TestEscapeOwnProgramLink(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			dist := filepath.Join(f.ws, "dist")
			mkdirAs(t, f, dist)
			mkdirAs(t, f, filepath.Join(f.ws, "bin"))
			copyExec(t, gatedexecBin, filepath.Join(dist, "gatedexec"))
			link := filepath.Join(f.ws, "bin", "gatedexec")
			if err := os.Symlink("../dist/gatedexec", link); err != nil {
				t.Fatal(err)
			}
			f.bin = link
			for _, script := range []string{
				"rm bin/gatedexec && printf '#!/bin/sh\\necho PWNED\\n' > bin/gatedexec",
				"ln -sf /bin/true bin/gatedexec",
				"mv bin bin.old && mkdir bin && ln -s /bin/true bin/gatedexec",
			} {
				out, _ := f.sandboxed(t, "workspace-write", "sh", "-c", script)
				if target, err := os.Readlink(link); err != nil || target != "../dist/gatedexec" {
					t.Fatalf("%q replaced the link gatedexec was started by (now %q, %v):\n%s", script, target, err, out)
				}
			}
		})
	}
}

// TestEscapeHomeHooksPath: with the workspace at the home, a repository's
// core.hooksPath = ~/.githooks names hooks the command could otherwise
// rewrite; they stay read-only.
func TestEscapeHomeHooksPath(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			hooks := filepath.Join(f.home, ".githooks")
			mkdirAs(t, f, hooks)
			hook := filepath.Join(hooks, "pre-commit")
			writeAs(t, f, hook, "#!/bin/sh\nexit 0\n")
			gitAs(t, f, "init", "-q", f.home)
			gitAs(t, f, "-C", f.home, "config", "core.hooksPath", "~/.githooks")
			run := f.command("sandbox", "-p", "workspace-write", "-C", f.home, "-w", f.home, "--",
				"sh", "-c", "printf '#!/bin/sh\\necho PWNED\\n' > .githooks/pre-commit")
			b, _ := run.CombinedOutput()
			if got := readFile(t, hook); got != "#!/bin/sh\nexit 0\n" {
				t.Errorf("the command rewrote ~/.githooks/pre-commit:\n%s", b)
			}
		})
	}
}
