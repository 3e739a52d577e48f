package profiles

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/gatedexec/gatedexec/sandbox"
)

// cachedLoader is the fixture's loader with a parse cache in a directory
// of its own.
func (f *fixture) cachedLoader(t *testing.T) *Loader {
	t.Helper()
	l := f.loader()
	l.CacheDir = filepath.Join(f.root, "cache", "profiles")
	l.CacheBuild = "build-1"
	return l
}

// resolveBoth resolves name through l and through a copy of l without a
// cache, fails unless they agree, and reports whether l's resolution
// took every file from the cache.
func resolveBoth(t *testing.T, l *Loader, name string) (hit bool) {
	t.Helper()
	got, m, err := l.resolve(name)
	fresh := *l
	fresh.CacheDir, fresh.CacheBuild = "", ""
	want, werr := fresh.Resolve(name)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("resolve %s: cached error %v, fresh %v", name, err, werr)
	}
	if got != nil {
		// The cached loader's profile keeps what is built from it where
		// the loader keeps its parses; that is all that differs.
		if wantCache := (sandbox.BuildCache{Dir: l.CacheDir, Build: l.CacheBuild}); got.BuildCache != wantCache {
			t.Fatalf("resolve %s: build cache %+v, want %+v", name, got.BuildCache, wantCache)
		}
		c := *got
		c.BuildCache = sandbox.BuildCache{}
		got = &c
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resolve %s: cached\n%+v\nfresh\n%+v", name, got, want)
	}
	return m != nil && !m.missed && len(m.used) > 0
}

// onlyEntry returns the path of the one entry in l's cache directory.
func onlyEntry(t *testing.T, l *Loader) string {
	t.Helper()
	ents, err := os.ReadDir(l.CacheDir)
	// Entries are named in hex: the trim marker's name starts with a dot.
	ents = slices.DeleteFunc(ents, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".") })
	if err != nil || len(ents) != 1 {
		t.Fatalf("cache directory: %v, %d entries", err, len(ents))
	}
	return filepath.Join(l.CacheDir, ents[0].Name())
}

// The second resolution of a profile takes every file it reads from the
// cache and yields what a fresh one does: built-ins, extends chains
// through the layers, a profile file named directly.
func TestParseCacheHit(t *testing.T) {
	f := newFixture(t)
	f.write(t, "user/dev.toml", "extends = \"workspace-write\"\n[network]\nmode = \"on\"\n[limits]\ntimeout = \"90s\"\nmemory = \"2G\"\n")
	f.write(t, "sys/base.toml", "extends = \"read-only\"\n[filesystem]\nwrite = [\":workspace\", \"~/out\", \"$DATA/x\"]\nprivate_tmp = false\n")
	f.write(t, "user/base.toml", "extends = \"base\"\n[network]\nunix_sockets = [\":ssh-agent\"]\n[process]\nsetsid = false\n")
	file := f.write(t, "cwd/mine.toml", "extends = \"dev\"\n[filesystem]\nhide = []\n")
	names := append(BuiltinNames(), "dev", "base", file)
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			l := f.cachedLoader(t)
			if resolveBoth(t, l, name) {
				t.Fatal("the first resolution hit an empty cache")
			}
			if !resolveBoth(t, l, name) {
				t.Fatal("the second resolution parsed again")
			}
		})
	}
}

// Every input of a parse changes what is read: an edit, a profile added
// in a higher layer, one removed, another build. Host facts are not part
// of the entry at all: a different workspace, home, variable, TMPDIR,
// symlink or git configuration is expanded afresh, so a cached profile
// never carries an old one.
func TestParseCacheInvalidation(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, f *fixture, l *Loader)
		// parses says the change must make the resolution parse again.
		parses bool
	}{
		{"edit", func(t *testing.T, f *fixture, l *Loader) {
			f.write(t, "user/p.toml", "extends = \"read-only\"\n[network]\nmode = \"on\"\n")
		}, true},
		{"same size edit", func(t *testing.T, f *fixture, l *Loader) {
			f.write(t, "user/p.toml", "extends = \"read-only\"\n[network]\nmode = \"of\"\n")
		}, true},
		{"parent added in a higher layer", func(t *testing.T, f *fixture, l *Loader) {
			f.write(t, "user/read-only.toml", "extends = \"read-only\"\n[network]\nmode = \"on\"\n")
		}, true},
		{"profile added above", func(t *testing.T, f *fixture, l *Loader) {
			if err := os.MkdirAll(filepath.Join(f.root, "top"), 0o755); err != nil {
				t.Fatal(err)
			}
			f.write(t, "top/p.toml", "description = \"top\"\n")
			l.Dirs = append(l.Dirs, filepath.Join(f.root, "top"))
		}, true},
		{"profile removed", func(t *testing.T, f *fixture, l *Loader) {
			if err := os.Remove(filepath.Join(f.root, "user/p.toml")); err != nil {
				t.Fatal(err)
			}
			f.write(t, "sys/p.toml", "extends = \"workspace-write\"\n")
		}, true},
		{"other build", func(t *testing.T, f *fixture, l *Loader) { l.CacheBuild = "build-2" }, true},
		{"workspace", func(t *testing.T, f *fixture, l *Loader) { l.Vars.Workspace = filepath.Join(f.root, "ws/sub") }, false},
		{"home", func(t *testing.T, f *fixture, l *Loader) { l.Vars.Home = filepath.Join(f.root, "cwd") }, false},
		{"cwd", func(t *testing.T, f *fixture, l *Loader) { l.Vars.Cwd = filepath.Join(f.root, "ws") }, false},
		{"tmpdir", func(t *testing.T, f *fixture, l *Loader) { l.Vars.TmpDir = filepath.Join(f.root, "ws/sub") }, false},
		{"variable", func(t *testing.T, f *fixture, l *Loader) {
			l.Vars.Getenv = func(k string) string {
				if k == "DATA" {
					return filepath.Join(f.root, "cwd")
				}
				return ""
			}
		}, false},
		{"symlink", func(t *testing.T, f *fixture, l *Loader) {
			// ~/out becomes a link out of the home directory.
			if err := os.Symlink(filepath.Join(f.root, "env"), filepath.Join(f.vars.Home, "out")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"git", func(t *testing.T, f *fixture, l *Loader) {
			git := filepath.Join(f.vars.Workspace, ".git")
			if err := os.MkdirAll(filepath.Join(f.root, "hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(git, 0o755); err != nil {
				t.Fatal(err)
			}
			f.write(t, "ws/.git/config", "[core]\n\thooksPath = "+filepath.Join(f.root, "hooks")+"\n")
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "user/p.toml", "extends = \"read-only\"\n[filesystem]\nwrite = [\":workspace\", \":tmp\", \"~/out\", \"$DATA\"]\nprotect = [\":git\"]\n")
			l := f.cachedLoader(t)
			resolveBoth(t, l, "p")
			if !resolveBoth(t, l, "p") {
				t.Fatal("not cached")
			}
			tt.change(t, f, l)
			if hit := resolveBoth(t, l, "p"); hit == tt.parses {
				t.Errorf("after the change, cache hit = %v", hit)
			}
			// And the entry now holds what changed.
			if !resolveBoth(t, l, "p") {
				t.Error("not cached again after the change")
			}
		})
	}
}

// A poisoned entry is one that, trusted, would grant a profile what its
// file does not: it makes read-only's filesystem writable everywhere.
func poison(t *testing.T, l *Loader, name string) []byte {
	t.Helper()
	src, _ := builtinSrc(name)
	f, err := Parse("builtin/"+name+".toml", src)
	if err != nil {
		t.Fatal(err)
	}
	all := []string{":all"}
	f.Filesystem.Write = &all
	m := l.memo(name)
	return encodeParseEntry(m.key, []memoFile{{idOf("builtin/"+name+".toml", src), encodeFile(f)}})
}

// An entry that is damaged, written by another build, not private to the
// user or not a regular file is ignored: the profile is parsed and comes
// out as its files say. The poisoned entry, trusted, would make read-only
// writable, so each case shows that the check, not the entry, decides.
func TestParseCacheUntrustedEntries(t *testing.T) {
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	for _, tt := range []struct {
		name string
		// spoil turns the poisoned entry at path into an untrusted one.
		spoil func(t *testing.T, dir, path string, entry []byte)
	}{
		{"trusted", func(t *testing.T, dir, path string, entry []byte) {}},
		{"truncated", func(t *testing.T, dir, path string, entry []byte) {
			writeEntry(t, path, entry[:len(entry)-1], 0o600)
		}},
		{"bit flip", func(t *testing.T, dir, path string, entry []byte) {
			e := append([]byte{}, entry...)
			e[len(e)/2] ^= 0x40
			writeEntry(t, path, e, 0o600)
		}},
		{"bad magic", func(t *testing.T, dir, path string, entry []byte) {
			e := append([]byte{}, entry...)
			e[0] = 'X'
			writeEntry(t, path, e, 0o600)
		}},
		{"other build", func(t *testing.T, dir, path string, entry []byte) {
			e := append([]byte{}, entry...)
			e[len(parseCacheMagic)] ^= 1
			writeEntry(t, path, e, 0o600)
		}},
		{"empty", func(t *testing.T, dir, path string, entry []byte) { writeEntry(t, path, nil, 0o600) }},
		{"group writable", func(t *testing.T, dir, path string, entry []byte) { chmod(t, path, 0o620) }},
		{"world writable", func(t *testing.T, dir, path string, entry []byte) { chmod(t, path, 0o602) }},
		{"foreign owner", func(t *testing.T, dir, path string, entry []byte) { chown(t, path, uid) }},
		{"directory of a foreign owner", func(t *testing.T, dir, path string, entry []byte) { chown(t, dir, uid) }},
		{"group writable directory", func(t *testing.T, dir, path string, entry []byte) { chmod(t, dir, 0o770) }},
		{"symlink", func(t *testing.T, dir, path string, entry []byte) {
			other := filepath.Join(filepath.Dir(dir), "elsewhere")
			writeEntry(t, other, entry, 0o600)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory symlink", func(t *testing.T, dir, path string, entry []byte) {
			real := dir + ".real"
			if err := os.Rename(dir, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, dir); err != nil {
				t.Fatal(err)
			}
		}},
		{"too large", func(t *testing.T, dir, path string, entry []byte) {
			e := append(append([]byte{}, entry...), make([]byte, maxParseCacheEntry)...)
			writeEntry(t, path, e, 0o600)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			l := f.cachedLoader(t)
			// The cache made by a resolution, so that its directory and
			// the entry's name are the real ones.
			resolveBoth(t, l, "read-only")
			path := onlyEntry(t, l)
			entry := poison(t, l, "read-only")
			writeEntry(t, path, entry, 0o600)
			tt.spoil(t, l.CacheDir, path, entry)
			p, err := l.Resolve("read-only")
			if err != nil {
				t.Fatal(err)
			}
			poisoned := len(p.Write) > 0 || p.Unrestricted
			if want := tt.name == "trusted"; poisoned != want {
				t.Fatalf("poisoned = %v, want %v (write %q)", poisoned, want, p.Write)
			}
		})
	}
}

func writeEntry(t *testing.T, path string, b []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
	chmod(t, path, mode)
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string, uid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	if err := os.Lchown(path, uid, -1); err != nil {
		t.Fatal(err)
	}
}

// A file that does not parse is reported on every resolution, never
// cached; the files of its chain that parsed may be.
func TestParseCacheNeverStoresFailures(t *testing.T) {
	f := newFixture(t)
	f.write(t, "user/bad.toml", "extends = \"read-only\"\n[network]\nmode = 3\n")
	l := f.cachedLoader(t)
	for range 2 {
		_, m, err := l.resolve("bad")
		if err == nil {
			t.Fatal("a bad profile resolved")
		}
		if len(m.used) != 0 {
			t.Fatalf("a failed parse was recorded: %d files", len(m.used))
		}
	}
	if ents, _ := os.ReadDir(l.CacheDir); len(ents) != 0 {
		t.Fatalf("%d entries for a profile that does not parse", len(ents))
	}
	// A bad value found after parsing fails the same way from the cache.
	f.write(t, "user/unset.toml", "extends = \"read-only\"\n[filesystem]\nwrite = [\"$NOT_SET\"]\n")
	for i := range 2 {
		_, m, err := l.resolve("unset")
		if err == nil {
			t.Fatal("a profile naming an unset variable resolved")
		}
		if hit := !m.missed; hit != (i == 1) {
			t.Errorf("resolution %d: hit = %v", i, hit)
		}
	}
}

// Writers racing on one entry leave one that decodes, and every reader
// meanwhile gets the profile its files say.
func TestParseCacheConcurrentWriters(t *testing.T) {
	f := newFixture(t)
	f.write(t, "user/p.toml", "extends = \"workspace-write\"\n")
	l := f.cachedLoader(t)
	resolveBoth(t, l, "p")
	path := onlyEntry(t, l)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				// Half remove the entry first, so that the resolutions
				// keep writing it while the others read it.
				if i%2 == 0 {
					os.Remove(path)
				}
				got, err := f.cachedLoader(t).Resolve("p")
				if err != nil {
					errs <- err
					return
				}
				if got.Name != "p" || len(got.Write) == 0 || !got.ReadAll || len(got.Hide) == 0 {
					errs <- fmt.Errorf("resolved %+v", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	resolveBoth(t, l, "p")
	entry, err := os.ReadFile(onlyEntry(t, l))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeParseEntry(l.memo("p").key, entry); err != nil {
		t.Fatalf("entry left by the writers: %v", err)
	}
}

// Every key of File survives the entry encoding: a field added to File
// and not to encodeFile fails here rather than vanish from a cached
// profile (a cached profile that lost a protect list would be a hole).
func TestParseCacheEncodesEveryField(t *testing.T) {
	for _, tt := range []struct {
		name string
		fill func(v reflect.Value)
	}{
		{"all set", func(v reflect.Value) { n := 0; fill(v, &n, false) }},
		{"empty lists", func(v reflect.Value) { n := 0; fill(v, &n, true) }},
		{"none set", func(reflect.Value) {}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &File{}
			tt.fill(reflect.ValueOf(f).Elem())
			f.Name, f.src, f.unknown = "", nil, nil
			got, err := decodeFile(encodeFile(f))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, f) {
				t.Fatalf("decoded\n%+v\nencoded\n%+v", got, f)
			}
		})
	}
	// And every built-in profile.
	for _, name := range BuiltinNames() {
		src, _ := builtinSrc(name)
		f, err := Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeFile(encodeFile(f))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.unknown) != 0 {
			t.Fatalf("%s: unknown keys %v", name, f.unknown)
		}
		got.Name, got.src, got.unknown = f.Name, f.src, f.unknown
		if !reflect.DeepEqual(got, f) {
			t.Fatalf("%s: decoded\n%+v\nparsed\n%+v", name, got, f)
		}
	}
}

// fill sets every field below v, exported or not, to a distinct non-zero
// value (lists empty when empty is set): what a file setting every key
// would parse to.
func fill(v reflect.Value, n *int, empty bool) {
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n, empty)
	case reflect.Struct:
		for i := range v.NumField() {
			if name := v.Type().Field(i).Name; name == "src" || name == "unknown" {
				continue // not keys: the source is the reader's, and a cached file has no unknown keys
			}
			fv := v.Field(i)
			fill(reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem(), n, empty)
		}
	case reflect.Slice:
		if empty {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n, empty)
		fill(v.Index(1), n, empty)
	case reflect.String:
		v.SetString(fmt.Sprint("s", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n % 100))
	case reflect.Uint64:
		v.SetUint(uint64(*n) << 20)
	default:
		panic(fmt.Sprintf("fill: a field of kind %s: teach fill and encodeFile about it", v.Kind()))
	}
}

// The slot of an entry tells apart what is resolved and where it is
// looked for, so that one workspace's entry does not keep replacing
// another's.
func TestParseCacheSlots(t *testing.T) {
	f := newFixture(t)
	base := f.cachedLoader(t)
	slot := func(l *Loader, name string) string { return l.memo(name).slot }
	other := *base
	other.Dirs = append([]string{}, base.Dirs[:1]...)
	build := *base
	build.CacheBuild = "build-2"
	for _, tt := range []struct {
		a, b   string
		differ bool
	}{
		{slot(base, "read-only"), slot(base, "read-only"), false},
		{slot(base, "read-only"), slot(base, "workspace-write"), true},
		{slot(base, "read-only"), slot(&other, "read-only"), true},
		{slot(base, "read-only"), slot(&build, "read-only"), true},
	} {
		if (tt.a != tt.b) != tt.differ {
			t.Errorf("slots %s and %s: differ = %v", tt.a, tt.b, !tt.differ)
		}
	}
}

// BenchmarkResolveCached measures resolving the default profile with the
// parse cache warm, beside BenchmarkResolveBuiltin (no cache).
func BenchmarkResolveCached(b *testing.B) {
	dir := b.TempDir()
	l := &Loader{Dirs: []string{dir + "/sys", dir + "/user"},
		Vars:     Vars{Workspace: dir, Cwd: dir, Home: dir, TmpDir: "/tmp"},
		CacheDir: dir + "/cache", CacheBuild: "bench"}
	if _, err := l.Resolve(DefaultProfile); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.Resolve(DefaultProfile); err != nil {
			b.Fatal(err)
		}
	}
}
