package sandbox

import (
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
	got, err := GitControl(ws)
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
	got, err = GitControl(ws)
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
	got, err = GitControl(wt)
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
	before := ScanGitRepos(ws)
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
