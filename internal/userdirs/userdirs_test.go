package userdirs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	passwd := func(h string, err error) func() (string, error) {
		return func() (string, error) { return h, err }
	}
	for _, tc := range []struct {
		name   string
		env    map[string]string
		lookup func() (string, error)
		want   Dirs
		noHome bool
	}{
		{"home", map[string]string{"HOME": "/h"}, passwd("/pw", nil),
			Dirs{Home: "/h", Config: "/h/.config/gatedexec", State: "/h/.local/state/gatedexec", Cache: "/h/.cache/gatedexec"}, false},
		{"xdg", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s/", "XDG_CACHE_HOME": "/k"}, passwd("/pw", nil),
			Dirs{Home: "/h", Config: "/c/gatedexec", State: "/s/gatedexec", Cache: "/k/gatedexec"}, false},
		{"relative xdg ignored", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": "st"}, passwd("/pw", nil),
			Dirs{Home: "/h", Config: "/h/.config/gatedexec", State: "/h/.local/state/gatedexec", Cache: "/h/.cache/gatedexec"}, false},
		// The item-0 case: no HOME must never mean the current directory.
		{"unset home uses passwd", map[string]string{}, passwd("/pw", nil),
			Dirs{Home: "/pw", Config: "/pw/.config/gatedexec", State: "/pw/.local/state/gatedexec", Cache: "/pw/.cache/gatedexec"}, false},
		{"relative home uses passwd", map[string]string{"HOME": "."}, passwd("/pw", nil),
			Dirs{Home: "/pw", Config: "/pw/.config/gatedexec", State: "/pw/.local/state/gatedexec", Cache: "/pw/.cache/gatedexec"}, false},
		{"no passwd entry", map[string]string{}, passwd("", errors.New("unknown userid")), Dirs{}, true},
		{"relative passwd home", map[string]string{"HOME": ""}, passwd("home", nil), Dirs{}, true},
		{"empty passwd home", map[string]string{}, passwd("", nil), Dirs{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolve(func(k string) string { return tc.env[k] }, tc.lookup)
			if tc.noHome {
				if !errors.Is(err, ErrNoHome) {
					t.Fatalf("resolve = %+v, %v; want ErrNoHome", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("resolve = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestResolvePasswd uses the real passwd lookup, the one static builds
// (osusergo) rely on: with HOME unset it must still give an absolute home.
func TestResolvePasswd(t *testing.T) {
	h, err := passwdHome()
	if err != nil {
		t.Skipf("uid %d has no passwd entry: %v", os.Geteuid(), err)
	}
	d, err := Resolve(func(string) string { return "" })
	if err != nil || d.Home != filepath.Clean(h) || !filepath.IsAbs(d.Config) {
		t.Fatalf("Resolve = %+v, %v; want home %s", d, err, h)
	}
}
