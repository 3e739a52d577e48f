package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name, src, wantErr string
		want               Settings
	}{
		{name: "empty"},
		{name: "all keys", src: "approval_policy = \"never\"\napprover = \"deny\"\nprofile = \"read-only\"\naudit_log = \"/x\"\naudit_fsync = true\n",
			want: Settings{ApprovalPolicy: "never", Approver: "deny", Profile: "read-only", AuditLog: "/x", AuditFsync: ptr(true)}},
		{name: "unknown key", src: "profile = \"x\"\n\nnope = 1\n", wantErr: "c.toml:3:1: unknown key \"nope\""},
		{name: "unknown table key", src: "[extra]\nkey = 1\n", wantErr: "c.toml:1:2: unknown key \"extra\""},
		{name: "bad type", src: "profile = 3\n", wantErr: "c.toml:1:11: profile: want a string, got an integer"},
		{name: "syntax", src: "profile = \n", wantErr: "c.toml:1:11: "},
		{name: "key in another case", src: "approver = \"deny\"\nAPPROVER = \"exec:/bin/true\"\n", wantErr: `c.toml:2:1: key "APPROVER" is not spelt "approver"`},
		{name: "origin is not a key", src: "Origin = \"x\"\n", wantErr: `c.toml:1:1: unknown key "Origin"`},
		{name: "relative audit log", src: "profile = \"p\"\naudit_log = \"logs/a.jsonl\"\n", wantErr: `c.toml:2:1: audit_log "logs/a.jsonl" is not an absolute path`},
		{name: "approver timeout", src: "approver_timeout = \"10s\"\n", want: Settings{ApproverTimeout: "10s"}},
		{name: "zero approver timeout", src: "approver = \"deny\"\napprover_timeout = \"0s\"\n", wantErr: `c.toml:2:1: approver_timeout: timeout "0s" is not positive`},
		{name: "bad approver timeout", src: "approver_timeout = \"soon\"\n", wantErr: `c.toml:1:1: approver_timeout: time: invalid duration`},
		// A managed approver is a pin (Managed.Approver): one that names no
		// approver would pin nothing.
		{name: "managed approver", src: "managed = true\naudit_log = \"/l\"\napprover = \"sure\"\n", wantErr: `c.toml:3:1: approver "sure" is not tty, deny, defer or exec:CMD`},
		{name: "managed exec approver", src: "managed = true\naudit_log = \"/l\"\napprover = \"exec:/usr/bin/ok\"\n",
			want: Settings{Approver: "exec:/usr/bin/ok", AuditLog: "/l"}},
		{name: "relative profile file", src: "approver = \"deny\"\nprofile = \"tools/p.toml\"\n", wantErr: `c.toml:2:1: profile "tools/p.toml" is a file but not an absolute path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSettings("c.toml", []byte(tt.src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.ApprovalPolicy != tt.want.ApprovalPolicy || got.Approver != tt.want.Approver ||
				got.Profile != tt.want.Profile || got.AuditLog != tt.want.AuditLog || got.ApproverTimeout != tt.want.ApproverTimeout ||
				(got.AuditFsync == nil) != (tt.want.AuditFsync == nil) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// Each key set remembers its file and line, through Over too, so that an
// error about its value can point at it.
func TestSettingsOrigin(t *testing.T) {
	lo, err := ParseSettings("lo.toml", []byte("profile = \"a\"\napprover = \"deny\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	hi, err := ParseSettings("hi.toml", []byte("# a comment\n\napprover = \"tty\"\naudit_fsync = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := lo.Over(hi)
	want := map[string]string{"profile": "lo.toml:1:1", "approver": "hi.toml:3:1", "audit_fsync": "hi.toml:4:1"}
	if !reflect.DeepEqual(got.Origin, want) {
		t.Errorf("Origin = %v, want %v", got.Origin, want)
	}
	if lo.Origin["approver"] != "lo.toml:2:1" {
		t.Errorf("Over changed the lower layer's Origin: %v", lo.Origin)
	}
	if none := (Settings{}).Over(Settings{Profile: "p"}); none.Origin["profile"] != "" {
		t.Errorf("a setting from nowhere has origin %q", none.Origin["profile"])
	}
}

func TestLoadLayers(t *testing.T) {
	root := t.TempDir()
	d := Dirs{System: filepath.Join(root, "etc"), User: filepath.Join(root, "user"),
		State: filepath.Join(root, "state"), Workspace: filepath.Join(root, "ws")}
	write(t, filepath.Join(d.System, "config.toml"), "profile = \"read-only\"\napprover = \"deny\"\n")
	write(t, filepath.Join(d.System, "rules", "a.rules"), "")
	write(t, filepath.Join(d.User, "config.toml"), "profile = \"workspace-write\"\n")
	write(t, filepath.Join(d.User, "profiles", "p.toml"), "")
	write(t, filepath.Join(d.Workspace, ".gatedexec", "config.toml"), "profile = \"full-access\"\n")
	write(t, filepath.Join(d.Workspace, ".gatedexec", "rules", "w.rules"), "")
	write(t, filepath.Join(d.Workspace, ".gatedexec", "profiles", "w.toml"), "")
	store := &TrustStore{Dir: filepath.Join(d.State, "trust")}

	c, err := Load(d, store)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.Profile != "workspace-write" || c.Settings.Approver != "deny" {
		t.Errorf("untrusted workspace config must be ignored, user wins over system: %+v", c.Settings)
	}
	if len(c.Rules) != 2 || !c.Rules[0].AllowRules || c.Rules[1].AllowRules {
		t.Errorf("rules = %+v, want system (allow) then workspace (no allow)", c.Rules)
	}
	if len(c.ProfileDirs) != 1 || len(c.Warnings) != 1 {
		t.Errorf("profile dirs %v warnings %v: untrusted workspace profiles must be ignored with one warning", c.ProfileDirs, c.Warnings)
	}

	if _, err := store.Trust(d.Workspace, ""); err != nil {
		t.Fatal(err)
	}
	c, err = Load(d, store)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.Profile != "full-access" || !c.Rules[1].AllowRules || len(c.ProfileDirs) != 2 || len(c.Warnings) != 0 {
		t.Errorf("trusted workspace layer not used: %+v", c)
	}

	// Any change to .gatedexec needs trust again.
	write(t, filepath.Join(d.Workspace, ".gatedexec", "rules", "w.rules"), "prefix_rule(pattern=[\"rm\"])\n")
	c, err = Load(d, store)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rules[1].AllowRules || c.Settings.Profile == "full-access" {
		t.Errorf("changed workspace layer still trusted: %+v", c)
	}

	if _, err := store.Trust(d.Workspace, ""); err != nil {
		t.Fatal(err)
	}
	if err := store.Revoke(d.Workspace); err != nil {
		t.Fatal(err)
	}
	if ok, err := isTrusted(store, d.Workspace); ok || err != nil {
		t.Errorf("after revoke: trusted=%v err=%v", ok, err)
	}
}

func TestEmptyWorkspaceLayerIsNoLayer(t *testing.T) {
	root := t.TempDir()
	d := Dirs{Workspace: filepath.Join(root, "ws")}
	if err := os.MkdirAll(WorkspaceLayerDir(d.Workspace), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Load(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Layers) != 0 || len(c.Warnings) != 0 {
		t.Fatalf("empty .gatedexec gave layers %v warnings %v", c.Layers, c.Warnings)
	}
}

func TestLoadBadConfigFailsWhole(t *testing.T) {
	root := t.TempDir()
	d := Dirs{System: filepath.Join(root, "etc"), User: filepath.Join(root, "user")}
	write(t, filepath.Join(d.User, "config.toml"), "approval_policy = 1\n")
	if _, err := Load(d, nil); err == nil || !strings.Contains(err.Error(), filepath.Join(d.User, "config.toml")) {
		t.Fatalf("error = %v, want one naming the file", err)
	}
}

func TestDefaultDirs(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "relative"}
	d, err := DefaultDirs(func(k string) string { return env[k] }, "/ws")
	if err != nil || d.User != "/c/gatedexec" || d.State != "/home/u/.local/state/gatedexec" || d.System != "/etc/gatedexec" ||
		d.Home != "/home/u" || d.Sessions() != "/home/u/.local/state/gatedexec/sessions" {
		t.Fatalf("%+v, %v", d, err)
	}
}

// TestLoadRefusesRelativeLayer: a relative layer directory would be read
// from wherever gatedexec runs, a repository's own files as the user's.
func TestLoadRefusesRelativeLayer(t *testing.T) {
	if _, err := Load(Dirs{System: "/nonexistent-etc", User: ".config/gatedexec"}, nil); err == nil {
		t.Fatal("Load accepted a relative user layer")
	}
}

// A trusted layer whose rules directory is a symlink must lose its trust
// when a file behind the link changes: the loaders follow the link, so the
// digest has to as well.
func TestDigestFollowsSymlinkedDirs(t *testing.T) {
	root := t.TempDir()
	layer, behind := filepath.Join(root, "ws", ".gatedexec"), filepath.Join(root, "ws", "shared-rules")
	write(t, filepath.Join(behind, "a.rules"), "prefix_rule(pattern=[\"ls\"], decision=\"allow\")\n")
	if err := os.MkdirAll(layer, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared-rules", filepath.Join(layer, "rules")); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Dir(layer)
	before, err := LayerSnapshot(ws)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(behind, "b.rules"), "prefix_rule(pattern=[\"curl\"], decision=\"allow\")\n")
	after, err := LayerSnapshot(ws)
	if err != nil {
		t.Fatal(err)
	}
	if before.Digest() == after.Digest() {
		t.Fatal("adding a file behind a symlinked directory left the digest unchanged")
	}

	// A link back up the tree is bounded, and an error, not a hang.
	if err := os.Symlink("..", filepath.Join(behind, "loop")); err != nil {
		t.Fatal(err)
	}
	if _, err := LayerSnapshot(ws); err == nil {
		t.Fatal("a symlink loop digested without error")
	}
}

// Trust with an expected digest records nothing unless the layer still has
// it: what is trusted is what was reviewed.
func TestTrustExpectedDigest(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	write(t, filepath.Join(WorkspaceLayerDir(ws), "rules", "a.rules"), "")
	store := &TrustStore{Dir: filepath.Join(root, "trust")}
	reviewed, err := LayerSnapshot(ws)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(WorkspaceLayerDir(ws), "rules", "b.rules"), "prefix_rule(pattern=[\"curl\"], decision=\"allow\")\n")
	if _, err := store.Trust(ws, reviewed.Digest()); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("Trust after a change: %v, want ErrDigestMismatch", err)
	}
	for _, bad := range []string{"abc", strings.ToUpper(reviewed.Digest()), reviewed.Digest()[:DigestLen-1], reviewed.Digest()[:16], reviewed.Digest() + "0", "zz" + reviewed.Digest()[2:]} {
		if _, err := store.Trust(ws, bad); !errors.Is(err, ErrBadDigest) {
			t.Errorf("Trust(%q): %v, want ErrBadDigest", bad, err)
		}
	}
	if ok, err := isTrusted(store, ws); ok || err != nil {
		t.Fatalf("trusted (%v) after refused Trust calls", err)
	}
	now, err := LayerSnapshot(ws)
	if err != nil {
		t.Fatal(err)
	}
	if tree, err := store.Trust(ws, now.Digest()); err != nil || tree.Digest() != now.Digest() {
		t.Fatalf("Trust with the current digest: %v, %v", tree, err)
	}
	if ok, err := isTrusted(store, ws); !ok || err != nil {
		t.Fatalf("not trusted (%v) after Trust", err)
	}
}

// A trust store others can write trusts nothing: anyone able to write
// there could have planted the record.
func TestTrustStoreWritableByOthers(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	write(t, filepath.Join(WorkspaceLayerDir(ws), "rules", "a.rules"), "")
	store := &TrustStore{Dir: filepath.Join(root, "trust")}
	if _, err := store.Trust(ws, ""); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store.Dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if ok, err := isTrusted(store, ws); ok || err == nil {
		t.Fatalf("IsTrusted with a world-writable store = %v, %v; want false and an error", ok, err)
	}
	d := Dirs{State: root, User: filepath.Join(root, "user"), Workspace: ws}
	if cfg, err := Load(d, store); err == nil {
		t.Fatalf("Load with a world-writable trust store: no error (rules from %v)", cfg.Rules)
	}
}

// A trusted workspace layer names its profile, not a file: trust covers
// .gatedexec only, and a profile file elsewhere in the workspace is one a
// sandboxed command could rewrite to full-access for the next run.
func TestWorkspaceProfileIsAName(t *testing.T) {
	root := t.TempDir()
	d := Dirs{State: filepath.Join(root, "state"), User: filepath.Join(root, "user"), Workspace: filepath.Join(root, "ws")}
	store := &TrustStore{Dir: filepath.Join(d.State, "trust")}
	file := filepath.Join(d.Workspace, "tools", "p.toml")
	write(t, file, "extends = \"workspace-write\"\n")
	for _, tt := range []struct{ profile, wantErr string }{
		{"p", ""},
		{file, `config.toml:1:1: profile "` + file + `": a workspace layer names a profile of its profiles directory, not a file`},
	} {
		write(t, filepath.Join(WorkspaceLayerDir(d.Workspace), "config.toml"), "profile = \""+tt.profile+"\"\n")
		_, err := store.Trust(d.Workspace, "")
		if tt.wantErr != "" {
			// Trust refuses it at once (issue 11 item 19)...
			if !errors.Is(err, ErrBadLayer) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Trust with profile %q: %v, want ErrBadLayer: %s", tt.profile, err, tt.wantErr)
			}
			// ...and Load refuses it should a record say it is trusted.
			tree, err := LayerSnapshot(d.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(trustRecord{Workspace: d.Workspace, Digest: tree.Digest()})
			write(t, store.recordPath(d.Workspace), string(b))
		} else if err != nil {
			t.Fatal(err)
		}
		c, err := Load(d, store)
		if tt.wantErr == "" {
			if err != nil || c.Settings.Profile != tt.profile {
				t.Errorf("profile %q: %v, %+v", tt.profile, err, c)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("profile %q: error %v, want %q", tt.profile, err, tt.wantErr)
		}
	}
	// The user's own layer may name a file: it is not the repository's.
	write(t, filepath.Join(d.User, "config.toml"), "profile = \""+file+"\"\n")
	if err := os.Remove(filepath.Join(WorkspaceLayerDir(d.Workspace), "config.toml")); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(d, store); err != nil || c.Settings.Profile != file {
		t.Errorf("user layer naming a file: %v, %+v", err, c)
	}
}

// Every config.toml key is one of the Key constants and Over carries it.
func TestSettingsKeysAreOneList(t *testing.T) {
	typ := reflect.TypeOf(Settings{})
	keys := map[string]bool{KeyAuditFsync: true}
	for _, k := range append(slices.Clone(StringKeys), ManagedKeyNames...) {
		keys[k] = true
	}
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag.Get("toml")
		if tag != "-" && !keys[tag] {
			t.Errorf("Settings.%s (toml %q) is not among the Key constants", typ.Field(i).Name, tag)
		}
	}
	var hi Settings
	hi.Origin = map[string]string{}
	for _, k := range StringKeys {
		*hi.field(k) = "v-" + k
		hi.Origin[k] = "hi"
	}
	got := Settings{}.Over(hi)
	for _, k := range StringKeys {
		if got.Get(k) != "v-"+k || got.Origin[k] != "hi" {
			t.Errorf("Over lost %s", k)
		}
	}
}

// isTrusted reports whether workspace is trusted and its .gatedexec is
// unchanged since.
func isTrusted(t *TrustStore, workspace string) (bool, error) {
	tree, err := t.trusted(workspace)
	return tree != nil, err
}
