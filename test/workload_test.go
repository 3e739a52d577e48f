package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workloadProfiles are the profiles everyday work must run under.
var workloadProfiles = []string{"workspace-write", "workspace-dev"}

// TestWorkloads runs ordinary developer work under the default profile and
// workspace-dev, as root and unprivileged: it must work without reaching
// for full-access, and what lies outside the grants must still fail.
func TestWorkloads(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			// The tools' own settings, pinned so that the test machine's
			// environment does not decide where caches go.
			f.env = []string{"GOCACHE=" + filepath.Join(f.home, ".cache", "go-build"), "GOPATH=" + filepath.Join(f.home, "go"),
				"GOMODCACHE=", "GOTOOLCHAIN=local", "GOFLAGS=", "GOENV=off", "PIP_CACHE_DIR=", "XDG_CACHE_HOME=",
				"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
				"PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin"}
			gitAs(t, f, "commit", "-q", "--allow-empty", "-m", "first")
			writeWorkloadFiles(t, f)
			for _, prof := range workloadProfiles {
				t.Run(prof, func(t *testing.T) {
					run := func(t *testing.T, script string) (string, int) {
						t.Helper()
						return f.gatedexecAs(t, "run", "-p", prof, "--approval-policy", "never", "--", "sh", "-c", script)
					}
					t.Run("git", func(t *testing.T) {
						// Not $$: in its own PID namespace every run's shell is pid 2.
						out, code := run(t, `set -e
n=`+prof+`; b=b-$n; git checkout -q -b $b; echo 1 > g1-$n; git add g1-$n; git commit -q -m g1
git checkout -q -; echo 2 > g2-$n; git add g2-$n; git commit -q -m g2
git checkout -q $b; git rebase -q -; echo dirty >> g1-$n; git stash -q; git stash pop -q; git checkout -q -- g1-$n
git checkout -q -; git branch -q -D $b; echo git-ok`)
						expectOK(t, out, code, "git-ok")
					})
					t.Run("worktree-commit", func(t *testing.T) {
						wt := filepath.Join(filepath.Dir(f.ws), "wt-"+prof)
						gitAs(t, f, "worktree", "add", "-q", wt)
						out, code := f.gatedexecAs(t, "run", "-p", prof, "-C", wt, "-w", wt, "--approval-policy", "never", "--",
							"sh", "-c", "echo w > w.txt && git add w.txt && git commit -q -m in-worktree && echo wt-ok")
						expectOK(t, out, code, "wt-ok")
						out, code = f.gatedexecAs(t, "run", "-p", prof, "-C", wt, "-w", wt, "--approval-policy", "never", "--",
							"sh", "-c", "echo x >> ../ws/.git/hooks/pre-commit || echo ../ws/.git/config-still-ro; echo x >> \"$(git rev-parse --git-common-dir)/config\"")
						if code == 0 {
							t.Errorf("a worktree's command wrote the common dir's config or hooks:\n%s", out)
						}
					})
					t.Run("submodule-commit", func(t *testing.T) {
						sub := filepath.Join(filepath.Dir(f.ws), "subrepo-"+prof)
						mkdirAs(t, f, sub)
						gitAs(t, f, "-C", sub, "init", "-q")
						gitAs(t, f, "-C", sub, "commit", "-q", "--allow-empty", "-m", "sub")
						gitAs(t, f, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub-"+prof)
						dir := filepath.Join(f.ws, "sub-"+prof)
						out, code := f.gatedexecAs(t, "run", "-p", prof, "-C", dir, "-w", dir, "--approval-policy", "never", "--",
							"sh", "-c", "echo s > s.txt && git add s.txt && git commit -q -m in-submodule && echo sub-ok")
						expectOK(t, out, code, "sub-ok")
						out, code = f.gatedexecAs(t, "run", "-p", prof, "-C", dir, "-w", dir, "--approval-policy", "never", "--",
							"sh", "-c", "echo x >> \"$(git rev-parse --git-dir)/config\"")
						if code == 0 {
							t.Errorf("a submodule's command wrote its git dir's config:\n%s", out)
						}
					})
					t.Run("go-build-test", func(t *testing.T) {
						out, code := run(t, "cd gomod && go build ./... && go test ./... && echo go-ok")
						if prof == "workspace-dev" {
							expectOK(t, out, code, "go-ok")
						} else if code == 0 || !strings.Contains(out, "add :cache:go") {
							// The default profile keeps the caches read-only and
							// says which token or profile would allow the build.
							t.Errorf("go build under %s: want a denied cache write and a hint, exit %d:\n%s", prof, code, out)
						}
					})
					t.Run("python-venv", func(t *testing.T) {
						out, code := run(t, "python3 -m venv venv-"+prof+" && ./venv-"+prof+"/bin/pip install -q --no-index --no-build-isolation --no-cache-dir ./pypkg && ./venv-"+prof+"/bin/python -c 'import gxpkg; print(gxpkg.ok())'")
						expectOK(t, out, code, "pkg-ok")
					})
					t.Run("npm-test", func(t *testing.T) {
						out, code := run(t, "cd npmpkg && npm test")
						expectOK(t, out, code, "npm-test-ok")
					})
					t.Run("make-cc", func(t *testing.T) {
						out, code := run(t, "cd cprog && make -s && ./hello")
						expectOK(t, out, code, "hello from cc")
					})
					t.Run("timeout", func(t *testing.T) {
						out, code := f.gatedexecAs(t, "run", "-p", prof, "--timeout", "1s", "--", "sleep", "30")
						if code != 124 {
							t.Errorf("--timeout 1s of sleep 30: exit %d, want 124:\n%s", code, out)
						}
					})
					t.Run("sigint", func(t *testing.T) {
						expectSIGINTReaches(t, f.command("run", "-p", prof, "--approval-policy", "never", "--",
							"sh", "-c", sigintScript(31409)), 31409)
					})
					// The negative side: outside the grants nothing changed.
					t.Run("outside-the-grants", func(t *testing.T) {
						out, code := run(t, "echo x >> $HOME/.profile-gx")
						if code == 0 {
							t.Errorf("wrote in the home beside the caches:\n%s", out)
						}
						modfile := filepath.Join(f.home, "go", "pkg", "mod", "example.com", "m@v1.0.0", "m.go")
						out, code = run(t, "echo '// pwned' >> "+modfile)
						if got := readFile(t, modfile); code == 0 || got != "package m\n" {
							t.Errorf("edited a file in the module cache: exit %d, now %q:\n%s", code, got, out)
						}
					})
				})
			}
		})
	}
}

func expectOK(t *testing.T, out string, code int, marker string) {
	t.Helper()
	if code != 0 || !strings.Contains(out, marker) {
		t.Errorf("want exit 0 and %q, got exit %d:\n%s", marker, code, out)
	}
}

// writeWorkloadFiles lays out a Go module, a Python package, an npm
// package and a C program in the workspace, and a module in the Go module
// cache, read-only as Go leaves it.
func writeWorkloadFiles(t *testing.T, f fixture) {
	t.Helper()
	files := map[string]string{
		"gomod/go.mod":        "module example.com/gx\n\ngo 1.21\n",
		"gomod/gx.go":         "package gx\n\nfunc Add(a, b int) int { return a + b }\n",
		"gomod/gx_test.go":    "package gx\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
		"pypkg/setup.py":      "from setuptools import setup\nsetup(name='gxpkg', version='1.0', py_modules=['gxpkg'])\n",
		"pypkg/gxpkg.py":      "def ok():\n    return 'pkg-ok'\n",
		"npmpkg/package.json": `{"name":"gx","version":"1.0.0","scripts":{"test":"node test.js"}}`,
		"npmpkg/test.js":      "console.log('npm-test-ok')\n",
		"cprog/Makefile":      "hello: hello.c\n\tcc -o hello hello.c\n",
		"cprog/hello.c":       "#include <stdio.h>\nint main(void) { puts(\"hello from cc\"); return 0; }\n",
		".gitignore":          "venv-*/\ngomod/\npypkg/\nnpmpkg/\ncprog/\n",
	}
	for rel, src := range files {
		p := filepath.Join(f.ws, rel)
		mkdirAs(t, f, filepath.Dir(p))
		writeAs(t, f, p, src)
	}
	mod := filepath.Join(f.home, "go", "pkg", "mod", "example.com", "m@v1.0.0")
	mkdirAs(t, f, mod)
	writeAs(t, f, filepath.Join(mod, "m.go"), "package m\n")
	if f.cred != nil {
		filepath.Walk(filepath.Join(f.home, "go"), func(q string, _ os.FileInfo, _ error) error {
			return os.Lchown(q, int(f.cred.Uid), int(f.cred.Gid))
		})
	}
	os.Chmod(filepath.Join(mod, "m.go"), 0o444)
	os.Chmod(mod, 0o555)
}

// TestGrantsArePerCommand: a rule's profile= and an approved escalation
// hold for that command's run only; the next command gets the default.
func TestGrantsArePerCommand(t *testing.T) {
	requireIsolation(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, buildProbe(t))
			if f.cred != nil {
				os.Chown(f.outside, int(f.cred.Uid), int(f.cred.Gid))
			}
			rules := writeProfile(t, f, "grant.rules", `prefix_rule(pattern=["touch"], decision="allow", profile="full-access")`+"\n")
			out, code := f.gatedexecAs(t, "run", "-r", rules, "--", "touch", filepath.Join(f.outside, "by-rule"))
			expectOK(t, out, code, "")
			out, code = f.gatedexecAs(t, "run", "-r", rules, "--", "cp", "README", filepath.Join(f.outside, "next"))
			if _, err := os.Stat(filepath.Join(f.outside, "next")); err == nil || code == 0 {
				t.Errorf("the command after a profile= rule ran with its profile: exit %d:\n%s", code, out)
			}

			apprDir, err := os.MkdirTemp("/var/tmp", "gatedexec-approver-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(apprDir)
			os.Chmod(apprDir, 0o755)
			approver := filepath.Join(apprDir, "approve.sh")
			mustWrite(t, approver, "#!/bin/sh\nid=$(sed -n 's/.*\"id\": *\"\\([0-9a-f]*\\)\".*/\\1/p' | head -1)\nprintf '{\"id\":\"%s\",\"outcome\":\"approved\"}\\n' \"$id\"\n")
			os.Chmod(approver, 0o755)
			out, code = f.gatedexecAs(t, "run", "--approval-policy", "on-failure", "--approver", "exec:"+approver, "--",
				"touch", filepath.Join(f.outside, "escalated"))
			if _, err := os.Stat(filepath.Join(f.outside, "escalated")); err != nil || code != 0 {
				t.Fatalf("control: the approved escalation did not let the command write: exit %d:\n%s", code, out)
			}
			out, code = f.gatedexecAs(t, "run", "--", "touch", filepath.Join(f.outside, "after"))
			if _, err := os.Stat(filepath.Join(f.outside, "after")); err == nil || code == 0 {
				t.Errorf("the command after an escalation kept its grant: exit %d:\n%s", code, out)
			}
		})
	}
}
