package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// GATEDEXEC_SYSTEM_DIR replaces the standard system directory, except
// when that one is managed: a variable must not lift the ceiling.
func TestSystemDirOverride(t *testing.T) {
	tests := []struct {
		name, stdConfig string
		wantStd         bool
	}{
		{name: "no standard config"},
		{name: "unmanaged standard config", stdConfig: "approval_policy = \"never\"\n"},
		{name: "managed standard config", stdConfig: "managed = true\naudit_log = \"/x\"\n", wantStd: true},
		{name: "unparsable standard config", stdConfig: "managed = \n", wantStd: true},
		{name: "managed with an unknown key", stdConfig: "managed = true\naudit_log = \"/x\"\nceiling = 1\n", wantStd: true},
		{name: "managed of the wrong type", stdConfig: "managed = \"yes\"\n", wantStd: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			std, other := filepath.Join(t.TempDir(), "etc"), t.TempDir()
			if tt.stdConfig != "" {
				write(t, filepath.Join(std, "config.toml"), tt.stdConfig)
			}
			got, refused := systemDir(std, other)
			if want := map[bool]string{true: std, false: other}[tt.wantStd]; got != want {
				t.Errorf("systemDir = %s, want %s", got, want)
			}
			if tt.wantStd != strings.Contains(refused, "GATEDEXEC_SYSTEM_DIR="+other) {
				t.Errorf("refused = %q", refused)
			}
		})
	}
}

// requireRoot skips a test that needs files owned by root, except where
// CI is set: CI runs as root and must run every test.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("a managed layer must be owned by root, and CI must run as root")
	}
	t.Skip("a managed layer must be owned by root")
}

// managedDir lays out a managed system layer in base: etc/ with a
// config.toml and rules/m.rules, all 0755/0644, and returns etc.
func managedDir(t *testing.T, base string) string {
	t.Helper()
	etc := filepath.Join(base, "etc")
	write(t, filepath.Join(etc, "config.toml"), "managed = true\naudit_log = \"/var/log/a.jsonl\"\n")
	write(t, filepath.Join(etc, "rules", "m.rules"), `prefix_rule(pattern=["git", "push"], decision="prompt")`+"\n")
	for _, d := range []string{base, etc, filepath.Join(etc, "rules")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return etc
}

// mkdirMode makes the directory path with exactly mode perm (no umask).
func mkdirMode(t *testing.T, path string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A managed layer reached through symlinks is checked along every path
// the links make, not only where they end: a link in a directory others
// can write could be pointed elsewhere after the check, and a linked
// directory's files are the layer's files too.
func TestManagedLayerSymlinks(t *testing.T) {
	requireRoot(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, base, etc string)
		want  string // in the error; "" is a managed layer loaded
	}{
		{name: "config.toml linked to a root-only file", setup: func(t *testing.T, base, etc string) {
			write(t, filepath.Join(base, "safe", "real.toml"), "managed = true\naudit_log = \"/var/log/b.jsonl\"\n")
			mkdirMode(t, filepath.Join(base, "safe"), 0o755)
			symlink(t, "../safe/real.toml", filepath.Join(etc, "config.toml"))
		}},
		{name: "config.toml linked into a directory others can write", want: "writable by its group or others", setup: func(t *testing.T, base, etc string) {
			write(t, filepath.Join(base, "open", "real.toml"), "managed = true\naudit_log = \"/var/log/b.jsonl\"\n")
			mkdirMode(t, filepath.Join(base, "open"), 0o777)
			symlink(t, filepath.Join(base, "open", "real.toml"), filepath.Join(etc, "config.toml"))
		}},
		{name: "a link in a directory others can write, to a root-only file", want: "open is writable by its group or others", setup: func(t *testing.T, base, etc string) {
			write(t, filepath.Join(base, "safe", "real.toml"), "managed = true\naudit_log = \"/var/log/b.jsonl\"\n")
			mkdirMode(t, filepath.Join(base, "safe"), 0o755)
			mkdirMode(t, filepath.Join(base, "open"), 0o777)
			symlink(t, filepath.Join(base, "safe", "real.toml"), filepath.Join(base, "open", "link"))
			symlink(t, filepath.Join(base, "open", "link"), filepath.Join(etc, "config.toml"))
		}},
		{name: "the layer itself reached through such a link", want: "open is writable by its group or others", setup: func(t *testing.T, base, etc string) {
			mkdirMode(t, filepath.Join(base, "open"), 0o777)
			symlink(t, etc, filepath.Join(base, "open", "link"))
			symlink(t, filepath.Join(base, "open", "link"), filepath.Join(base, "etc2"))
		}},
		{name: "rules linked to a directory with a group-writable file", want: "bad.rules is writable by its group", setup: func(t *testing.T, base, etc string) {
			write(t, filepath.Join(base, "shared", "bad.rules"), `prefix_rule(pattern=["ls"], decision="allow")`+"\n")
			mkdirMode(t, filepath.Join(base, "shared"), 0o755)
			if err := os.Chmod(filepath.Join(base, "shared", "bad.rules"), 0o664); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(etc, "rules"))
			symlink(t, filepath.Join(base, "shared"), filepath.Join(etc, "rules"))
		}},
		{name: "a link to nothing inside the layer", want: "no such file", setup: func(t *testing.T, base, etc string) {
			symlink(t, filepath.Join(base, "gone.rules"), filepath.Join(etc, "rules", "x.rules"))
		}},
		{name: "a link loop", want: "symbolic links", setup: func(t *testing.T, base, etc string) {
			symlink(t, filepath.Join(etc, "rules", "b.rules"), filepath.Join(etc, "rules", "a.rules"))
			symlink(t, filepath.Join(etc, "rules", "a.rules"), filepath.Join(etc, "rules", "b.rules"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			etc := managedDir(t, base)
			tt.setup(t, base, etc)
			system := etc
			if _, err := os.Lstat(filepath.Join(base, "etc2")); err == nil {
				system = filepath.Join(base, "etc2")
			}
			c, err := Load(Dirs{System: system}, nil)
			switch {
			case tt.want == "" && err != nil:
				t.Fatal(err)
			case tt.want == "" && c.Managed == nil:
				t.Fatal("not managed")
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// The managed layer is read once: its digest covers what its symlinks
// point at, and the loaders read its files from the snapshot that was
// checked and hashed, not again from the disk.
func TestManagedLayerIsReadOnce(t *testing.T) {
	requireRoot(t)
	base := t.TempDir()
	etc := managedDir(t, base)
	mkdirMode(t, filepath.Join(base, "safe"), 0o755)
	linked := filepath.Join(base, "safe", "linked.rules")
	write(t, linked, `prefix_rule(pattern=["rm"], decision="forbidden")`+"\n")
	symlink(t, linked, filepath.Join(etc, "rules", "linked.rules"))
	c, err := Load(Dirs{System: etc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := c.Managed.Digest
	rules := filepath.Join(etc, "rules", "m.rules")
	old, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	write(t, rules, `prefix_rule(pattern=["git"], decision="allow")`+"\n")
	got, err := c.Files.ReadFile(rules, 1<<20)
	if err != nil || string(got) != string(old) {
		t.Errorf("Files read %q, %v after the check; want the snapshot's %q", got, err, old)
	}
	write(t, linked, `prefix_rule(pattern=["rm"], decision="prompt")`+"\n")
	c2, err := Load(Dirs{System: etc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Managed.Digest == before {
		t.Error("the digest did not change with the file a symlink points at")
	}
}

// A system config.toml that is a link to nothing is an error, not an
// absent file: it may have been the managed ceiling. For the override,
// whatever cannot be read as an unmanaged config.toml keeps the standard
// directory, and a FIFO there does not block.
func TestSystemConfigThatCannotBeRead(t *testing.T) {
	base := t.TempDir()
	std := filepath.Join(base, "etc")
	if err := os.Mkdir(std, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(std, "config.toml")
	symlink(t, filepath.Join(base, "gone.toml"), file)
	if _, err := Load(Dirs{System: std}, nil); err == nil || !strings.Contains(err.Error(), "a symlink to nothing") {
		t.Errorf("Load with a dangling config.toml: %v", err)
	}
	for _, kind := range []string{"dangling link", "directory", "fifo"} {
		os.RemoveAll(file)
		switch kind {
		case "dangling link":
			symlink(t, filepath.Join(base, "gone.toml"), file)
		case "directory":
			mkdirMode(t, file, 0o755)
		case "fifo":
			if err := syscall.Mkfifo(file, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, refused := systemDir(std, t.TempDir()); got != std || refused == "" {
			t.Errorf("%s: systemDir = %s (refused %q), want the standard directory", kind, got, refused)
		}
	}
}
