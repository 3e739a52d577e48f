package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestParseGitConfig(t *testing.T) {
	src := `# a comment
[core]
	hooksPath = .githooks ; trailing comment
	fsmonitor = "touch x"
[include]
	path = ../shared.gitconfig
[includeIf "gitdir:~/work/"]
	path = "work config"
[Core] HooksPath = second
bad line
[remote "origin"]
	url = https://h/r.git#frag
`
	want := []gitKV{
		{"core.hookspath", ".githooks"}, {"core.fsmonitor", "touch x"}, {"include.path", "../shared.gitconfig"},
		{"includeif.gitdir:~/work/.path", "work config"}, {"core.hookspath", "second"},
		{"remote.origin.url", "https://h/r.git"},
	}
	if got := parseGitConfig([]byte(src)); !slices.Equal(got, want) {
		t.Errorf("parseGitConfig =\n%q\nwant\n%q", got, want)
	}
}

func FuzzParseGitConfig(f *testing.F) {
	f.Add([]byte("[core]\nhooksPath = x\n[include]\npath=\"a\\\"b\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, kv := range parseGitConfig(src) {
			if kv.key == "" {
				t.Errorf("empty key from %q", src)
			}
		}
	})
}

func gitInit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestGitControl(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws := t.TempDir()
	// Without a repository: hooks and config, held by an empty .git.
	got, err := GitControl(ws, "")
	if err != nil || !slices.Equal(got, []string{ws + "/.git/hooks", ws + "/.git/config"}) {
		t.Errorf("no repository: GitControl = %q, %v", got, err)
	}
	gitInit(t, ws, "init", "-q")
	gitInit(t, ws, "config", "core.hooksPath", ".githooks")
	gitInit(t, ws, "config", "include.path", "../inc.gitconfig")
	for _, d := range []string{".githooks", ".git/modules/sub/hooks", ".git/worktrees/wt"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	for _, f := range []string{".git/modules/sub/config", ".git/worktrees/wt/commondir", ".git/config.worktree"} {
		os.WriteFile(filepath.Join(ws, f), []byte("../..\n"), 0o644)
	}
	got, err = GitControl(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".git/hooks", ".git/config", ".git/info", ".git/config.worktree", ".githooks",
		".git/modules/sub/hooks", ".git/modules/sub/config", ".git/worktrees/wt/commondir"} {
		if !slices.Contains(got, filepath.Join(ws, rel)) {
			t.Errorf("GitControl lacks %s: %q", rel, got)
		}
	}
	// Missing files git would read are not listed: a holder for them
	// would break git (include target, commondir of the main repository).
	for _, p := range []string{filepath.Join(filepath.Dir(ws), "inc.gitconfig"), ws + "/.git/commondir"} {
		if slices.Contains(got, p) {
			t.Errorf("GitControl lists the missing %s", p)
		}
	}
	// A .git file: the file itself and the git dir it names.
	wt := filepath.Join(t.TempDir(), "wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+ws+"/.git/worktrees/wt\n"), 0o644)
	got, err = GitControl(wt, "")
	if err != nil || !slices.Contains(got, wt+"/.git") || !slices.Contains(got, ws+"/.git/worktrees/wt/commondir") ||
		!slices.Contains(got, ws+"/.git/config") {
		t.Errorf(".git file: GitControl = %q, %v", got, err)
	}
}

func TestGitTamper(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws := t.TempDir()
	gitInit(t, ws, "init", "-q")
	os.MkdirAll(filepath.Join(ws, "old"), 0o755)
	gitInit(t, filepath.Join(ws, "old"), "init", "-q")
	before := scanGitRepos(ws, "", time.Time{})
	time.Sleep(10 * time.Millisecond) // ctime granularity on coarse clocks
	// What a plain run does: files in the work tree and in .git.
	os.WriteFile(filepath.Join(ws, "a"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git", "index.lock"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, "old", "b"), []byte("x"), 0o644)
	if got, _, complete := before.GitTamper(); len(got) != 0 || !complete {
		t.Errorf("after ordinary writes: GitTamper = %q, %v", got, complete)
	}
	// What an attack does.
	gitInit(t, ws, "init", "-q", "new")
	os.WriteFile(filepath.Join(ws, "old", ".git", "config"), []byte("[core]\nfsmonitor = x\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	want := []string{ws + "/.git/hooks", ws + "/new/.git", ws + "/old/.git/config"}
	if got, _, _ := before.GitTamper(); !slices.Equal(got, want) {
		t.Errorf("GitTamper = %q, want %q", got, want)
	}
}

// TestGitControlModules: a submodule's git dir is found at any depth of
// modules/ (a submodule named vendor/lib keeps it at modules/vendor/lib),
// within the bounds.
func TestGitControlModules(t *testing.T) {
	requireGit(t)
	for _, c := range []struct {
		name    string
		bare    []string // git dirs made under .git/modules
		want    []string // relative to .git/modules
		wantNot []string
	}{
		{"one component", []string{"lib"}, []string{"lib/config", "lib/hooks"}, nil},
		{"a name with a slash", []string{"vendor/lib"}, []string{"vendor/lib/config", "vendor/lib/hooks", "vendor/lib/info"}, []string{"vendor/config", "vendor/hooks"}},
		{"deep", []string{"a/b/c/d/e"}, []string{"a/b/c/d/e/config"}, []string{"a/b/config"}},
		{"nested submodule", []string{"vendor/lib", "vendor/lib/modules/x/y"}, []string{"vendor/lib/config", "vendor/lib/modules/x/y/config"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			gitInit(t, ws, "init", "-q")
			for _, b := range c.bare {
				gitInit(t, ws, "init", "-q", "--bare", filepath.Join(".git", "modules", b))
			}
			got, err := GitControl(ws, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, rel := range c.want {
				if p := filepath.Join(ws, ".git", "modules", rel); !slices.Contains(got, p) {
					t.Errorf("GitControl lacks %s: %q", p, got)
				}
			}
			for _, rel := range c.wantNot {
				if p := filepath.Join(ws, ".git", "modules", rel); slices.Contains(got, p) {
					t.Errorf("GitControl lists %s, in no git dir: %q", p, got)
				}
			}
		})
	}
	// Bounded: past gitMaxModules directories GitControl fails rather
	// than leave a git dir it did not reach (a hostile modules/lib after
	// a pile of empty ones) writable.
	ws := t.TempDir()
	gitInit(t, ws, "init", "-q")
	for i := 0; i < gitMaxModules; i++ {
		os.MkdirAll(filepath.Join(ws, ".git", "modules", fmt.Sprint("d", i)), 0o755)
	}
	if got, err := GitControl(ws, ""); !errors.Is(err, errGitBounds) {
		t.Errorf("more module directories than the bound: GitControl = %d paths, %v; want errGitBounds", len(got), err)
	}
}

// TestGitControlLinks: a hook, config or include file that is a link to
// a file in the workspace (.git/hooks/pre-commit -> ../../scripts/x.sh)
// has its target, and every link on the way there, listed; one outside
// the workspace or missing does not.
func TestGitControlLinks(t *testing.T) {
	requireGit(t)
	for _, c := range []struct {
		name    string
		links   map[string]string // link (relative to the workspace) -> target
		files   []string          // made before the links
		want    []string
		wantNot []string
	}{
		{"hook", map[string]string{".git/hooks/pre-commit": "../../scripts/pre-commit.sh"},
			[]string{"scripts/pre-commit.sh"}, []string{"scripts/pre-commit.sh"}, nil},
		{"hook through two links", map[string]string{".git/hooks/pre-push": "../../bin/hook", "bin/hook": "../scripts/push.sh"},
			[]string{"scripts/push.sh"}, []string{"bin/hook", "scripts/push.sh"}, nil},
		{"hooks directory", map[string]string{".githooks/pre-commit": "../tools/lint.sh"},
			[]string{"tools/lint.sh"}, []string{".githooks", "tools/lint.sh"}, nil},
		{"dangling hook", map[string]string{".git/hooks/pre-commit": "../../scripts/missing.sh"},
			nil, nil, []string{"scripts/missing.sh"}},
		{"config", map[string]string{".git/config.worktree": "../shared/wt.config"},
			[]string{"shared/wt.config"}, []string{"shared/wt.config"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			gitInit(t, ws, "init", "-q")
			os.MkdirAll(filepath.Join(ws, ".githooks"), 0o755)
			gitInit(t, ws, "config", "core.hooksPath", ".githooks")
			for _, f := range c.files {
				writeFile(t, filepath.Join(ws, f), "#!/bin/sh\n")
			}
			for l, target := range c.links {
				os.MkdirAll(filepath.Join(ws, filepath.Dir(l)), 0o755)
				if err := os.Symlink(target, filepath.Join(ws, l)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := GitControl(ws, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, rel := range c.want {
				if !slices.Contains(got, filepath.Join(ws, rel)) {
					t.Errorf("GitControl lacks %s: %q", rel, got)
				}
			}
			for _, rel := range c.wantNot {
				if slices.Contains(got, filepath.Join(ws, rel)) {
					t.Errorf("GitControl lists %s: %q", rel, got)
				}
			}
		})
	}
	// Outside the workspace: not listed.
	ws, out := t.TempDir(), t.TempDir()
	gitInit(t, ws, "init", "-q")
	writeFile(t, filepath.Join(out, "hook.sh"), "#!/bin/sh\n")
	os.Symlink(filepath.Join(out, "hook.sh"), filepath.Join(ws, ".git", "hooks", "pre-commit"))
	if got, _ := GitControl(ws, ""); slices.Contains(got, filepath.Join(out, "hook.sh")) {
		t.Errorf("GitControl lists a target outside the workspace: %q", got)
	}
}

// TestGitTamperLinkedHook: the scan reports a change to the file a hook
// links to.
func TestGitTamperLinkedHook(t *testing.T) {
	requireGit(t)
	ws := t.TempDir()
	gitInit(t, ws, "init", "-q")
	writeFile(t, filepath.Join(ws, "scripts", "pre-commit.sh"), "#!/bin/sh\n")
	os.Symlink("../../scripts/pre-commit.sh", filepath.Join(ws, ".git", "hooks", "pre-commit"))
	before := scanGitRepos(ws, "", time.Time{})
	time.Sleep(10 * time.Millisecond) // ctime granularity on coarse clocks
	writeFile(t, filepath.Join(ws, "scripts", "pre-commit.sh"), "#!/bin/sh\ntouch PWNED\n")
	want := []string{filepath.Join(ws, "scripts", "pre-commit.sh")}
	if got, _, _ := before.GitTamper(); !slices.Equal(got, want) {
		t.Errorf("GitTamper = %q, want %q", got, want)
	}
}

// TestGitControlHomePaths: with the workspace holding the home, a "~/"
// path a repository's config names (core.hooksPath = ~/.githooks) is the
// command's to write, and listed; with the home elsewhere it is left to
// the home's own protection.
func TestGitControlHomePaths(t *testing.T) {
	requireGit(t)
	home := t.TempDir()
	ws := filepath.Join(home, "proj")
	os.Mkdir(ws, 0o755)
	gitInit(t, ws, "init", "-q")
	gitInit(t, ws, "config", "core.hooksPath", "~/.githooks")
	hooks := filepath.Join(home, ".githooks")
	os.Mkdir(hooks, 0o755)
	gitInit(t, home, "init", "-q")
	gitInit(t, home, "config", "core.hooksPath", "~/.githooks")
	if got, err := GitControl(home, home); err != nil || !slices.Contains(got, hooks) {
		t.Errorf("repository at the home: GitControl = %q, %v; want %s listed", got, err, hooks)
	}
	if got, err := GitControl(ws, home); err != nil || slices.Contains(got, hooks) {
		t.Errorf("home outside the workspace: GitControl = %q, %v; want %s not listed", got, err, hooks)
	}
}
