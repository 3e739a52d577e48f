package profiles

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCacheTokens(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte("registry=https://r\ncache = ~/npmcache\n"), 0o644)
	for _, tt := range []struct {
		token string
		env   map[string]string
		want  []string
	}{
		{":cache:go", nil, []string{home + "/.cache/go-build", home + "/go/pkg/mod"}},
		{":cache:go", map[string]string{"GOCACHE": "/gc", "GOPATH": "/gp1:/gp2"}, []string{"/gc", "/gp1/pkg/mod"}},
		{":cache:go", map[string]string{"GOMODCACHE": "/mc", "XDG_CACHE_HOME": "/xdg"}, []string{"/xdg/go-build", "/mc"}},
		{":cache:go", map[string]string{"GOCACHE": "relative"}, []string{home + "/.cache/go-build", home + "/go/pkg/mod"}},
		{":cache:npm", nil, []string{home + "/npmcache"}},
		{":cache:npm", map[string]string{"npm_config_cache": "/nc"}, []string{"/nc"}},
		{":cache:pip", map[string]string{"PIP_CACHE_DIR": "/pc"}, []string{"/pc"}},
		{":cache:pip", nil, []string{home + "/.cache/pip"}},
		{":cache:cargo", nil, []string{home + "/.cargo/registry", home + "/.cargo/git"}},
		{":cache:gradle", map[string]string{"GRADLE_USER_HOME": "/g"}, []string{"/g/caches", "/g/wrapper/dists"}},
		{":cache:maven", nil, []string{home + "/.m2/repository"}},
	} {
		v := &Vars{Home: home, Getenv: func(k string) string { return tt.env[k] }}
		if got := cacheTokens()[tt.token](v); !slices.Equal(got, tt.want) {
			t.Errorf("%s with %v = %q, want %q", tt.token, tt.env, got, tt.want)
		}
	}
	// A workspace at the home: the .npmrc there is the command's to write,
	// so its cache line is not taken.
	v := &Vars{Home: home, Workspace: home, Getenv: func(string) string { return "" }}
	if got := cacheTokens()[":cache:npm"](v); !slices.Equal(got, []string{home + "/.npm"}) {
		t.Errorf(":cache:npm with the workspace at the home = %q, want the default", got)
	}
	if got := CacheTokens(); len(got) != 6 || got[0] != ":cache:cargo" {
		t.Errorf("CacheTokens() = %q", got)
	}
}

func TestWorkspaceDevMakesItsCaches(t *testing.T) {
	f := newFixture(t)
	l := &Loader{Vars: f.vars}
	p, err := l.Resolve("workspace-dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{f.vars.Home + "/.cache/go-build", f.vars.Home + "/.npm", f.vars.Home + "/.cargo/registry"} {
		if !slices.Contains(p.Write, want) || !slices.Contains(p.MakeDirs, want) {
			t.Errorf("workspace-dev: %s not writable and made (write %q, make %q)", want, p.Write, p.MakeDirs)
		}
	}
	for _, not := range []string{f.vars.Home + "/.cargo/bin", f.vars.Home + "/.npmrc", f.vars.Home + "/.gradle/init.d", f.vars.Home} {
		if slices.Contains(p.Write, not) {
			t.Errorf("workspace-dev writes %s", not)
		}
	}
}

func TestCacheTokenFor(t *testing.T) {
	v := &Vars{Home: "/h", Getenv: func(string) string { return "" }}
	for path, want := range map[string]string{
		"/h/.cache/pip/http/x": ":cache:pip", "/h/.cache/go-build": ":cache:go", "/h/go/pkg/mod/x@v1": ":cache:go",
		"/h/.npm/_cacache": ":cache:npm", "/h/.cache/other": "", "/h/.cargo/bin/x": "", "/h/.m2/repository/a": ":cache:maven",
		"/h/.cache": ":cache:go or :cache:pip", "/h": "", "/elsewhere/.cache/pip": "",
	} {
		if got := CacheTokenFor(path, v); got != want {
			t.Errorf("CacheTokenFor(%s) = %q, want %q", path, got, want)
		}
	}
}
