package profiles

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// cacheTokens are the toolchain cache presets, ":cache:NAME" in a read or
// write list: the directories where each tool keeps what it downloads and
// builds, from the tool's own variables and defaults. Resolving one never
// runs the tool. Each lists only caches, never the tool's configuration or
// what it executes on its own (~/.cargo/bin, ~/.gradle/init.d, npm's
// .npmrc, Maven's settings.xml): a command that may write those runs code
// on the host's next build.
//
// Module and registry caches hold code that later builds run. Go keeps
// its module cache read-only by design (files 0444; with no capability
// even root must chmod first), Cargo checksums its registry; npm, pip,
// Gradle and Maven caches are plain files that a command allowed to write
// them can change, like the build caches (GOCACHE). The choice is the
// user's, made by naming the token or taking workspace-dev. Built on first
// use: most starts resolve no cache token.
var cacheTokens = sync.OnceValue(func() map[string]func(v *Vars) []string {
	return map[string]func(v *Vars) []string{
		":cache:go": func(v *Vars) []string {
			cache := v.getenv("GOCACHE")
			if !filepath.IsAbs(cache) {
				cache = filepath.Join(v.userCache(), "go-build")
			}
			mod := v.getenv("GOMODCACHE")
			if !filepath.IsAbs(mod) {
				gopath := strings.Split(v.getenv("GOPATH"), string(filepath.ListSeparator))[0]
				if !filepath.IsAbs(gopath) {
					gopath = filepath.Join(v.Home, "go")
				}
				mod = filepath.Join(gopath, "pkg", "mod")
			}
			return []string{cache, mod}
		},
		":cache:npm": func(v *Vars) []string {
			if c := v.getenv("npm_config_cache"); filepath.IsAbs(c) {
				return []string{c}
			}
			// An .npmrc in the workspace (a workspace at the home) is the
			// command's to write: a "cache = /" it left there would make
			// "/" writable for the next run.
			if rc := filepath.Join(v.Home, ".npmrc"); !v.inWorkspace(rc) {
				if c := npmrcCache(rc, v.Home); c != "" {
					return []string{c}
				}
			}
			return []string{filepath.Join(v.Home, ".npm")}
		},
		":cache:pip": func(v *Vars) []string {
			if c := v.getenv("PIP_CACHE_DIR"); filepath.IsAbs(c) {
				return []string{c}
			}
			return []string{filepath.Join(v.userCache(), "pip")}
		},
		":cache:cargo": func(v *Vars) []string {
			home := v.getenv("CARGO_HOME")
			if !filepath.IsAbs(home) {
				home = filepath.Join(v.Home, ".cargo")
			}
			return []string{filepath.Join(home, "registry"), filepath.Join(home, "git")}
		},
		":cache:gradle": func(v *Vars) []string {
			home := v.getenv("GRADLE_USER_HOME")
			if !filepath.IsAbs(home) {
				home = filepath.Join(v.Home, ".gradle")
			}
			return []string{filepath.Join(home, "caches"), filepath.Join(home, "wrapper", "dists")}
		},
		":cache:maven": func(v *Vars) []string {
			return []string{filepath.Join(v.Home, ".m2", "repository")}
		},
	}
})

// CacheTokens returns the names of the toolchain cache presets, sorted.
func CacheTokens() []string {
	names := make([]string, 0, len(cacheTokens()))
	for n := range cacheTokens() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// userCache is $XDG_CACHE_HOME, else ~/.cache.
func (v *Vars) userCache() string {
	if c := v.getenv("XDG_CACHE_HOME"); filepath.IsAbs(c) {
		return c
	}
	return filepath.Join(v.Home, ".cache")
}

// npmrcCache reads a "cache = DIR" line of an .npmrc, as npm would take
// it: an absolute path or one starting with ~/.
func npmrcCache(path, home string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, val, ok := strings.Cut(sc.Text(), "=")
		if !ok || strings.TrimSpace(k) != "cache" {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		switch {
		case strings.HasPrefix(val, "~/"):
			return filepath.Join(home, val[2:])
		case filepath.IsAbs(val):
			return val
		}
	}
	return ""
}

// CacheTokenFor returns the cache presets whose directories hold path, or
// lie below it (a tool making its cache was denied a parent), joined with
// " or "; "" when none does: what to suggest for a write the sandbox
// denied there.
func CacheTokenFor(path string, v *Vars) string {
	if !filepath.IsAbs(v.Home) || !strings.HasPrefix(path, v.Home+"/") {
		return ""
	}
	var toks []string
	for _, tok := range CacheTokens() {
		for _, d := range cacheTokens()[tok](v) {
			if within(path, d) || within(d, path) {
				toks = append(toks, tok)
				break
			}
		}
	}
	return strings.Join(toks, " or ")
}

// inWorkspace reports whether path lies in v's workspace, symlinks of
// both resolved where they exist; false when the workspace is not known.
func (v *Vars) inWorkspace(path string) bool {
	if !filepath.IsAbs(v.Workspace) {
		return false
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	return within(path, v.Workspace) || within(real(filepath.Dir(path)), real(v.Workspace))
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}
