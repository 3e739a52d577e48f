package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatedexec/gatedexec/internal/snapshot"
	"github.com/gatedexec/gatedexec/sandbox"
)

// Loader finds profiles by name in layered directories and resolves them.
type Loader struct {
	// Dirs are the profile directories, lowest layer first; a profile in a
	// higher layer replaces one of the same name below it and the built-ins.
	// A directory that does not exist is skipped.
	Dirs []string
	// Vars are the host facts path tokens expand to.
	Vars Vars
	// Files reads the profile files; nil reads the disk. A trusted
	// layer's profiles are read from the snapshot its trust was checked
	// on (see package config).
	Files snapshot.FS
	// CacheDir, with CacheBuild, is where Resolve keeps the parsed form
	// of the files it reads (see parsecache.go); "" is no cache.
	CacheDir string
	// CacheBuild identifies the build of gatedexec (for instance
	// execpolicy.BuildIdentity): an entry written by another build is
	// never read. "" is no cache.
	CacheBuild string
}

// MaxFileSize bounds a profile file (1 MiB); a larger one is an error,
// not a hang.
const MaxFileSize = 1 << 20

// maxExtends bounds an extends chain; longer ones are almost surely a
// mistake and would only make errors harder to read.
const maxExtends = 32

// where is a profile's location: layer index into Dirs (-1 for built-in,
// len(Dirs) for a file named directly) and the file's path.
type where struct {
	layer int
	path  string
}

// IsFile reports whether nameOrFile names a file rather than a profile:
// it contains a slash or ends in ".toml".
func IsFile(nameOrFile string) bool {
	return strings.ContainsRune(nameOrFile, '/') || strings.HasSuffix(nameOrFile, ".toml")
}

// validName reports whether name can be a profile name: what may stand
// before ".toml" in a profile directory.
func validName(name string) bool {
	if name == "" || name[0] == '.' || name[0] == '-' {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Resolve loads the profile nameOrFile (a name, or a file when IsFile),
// follows its extends chain and expands its paths.
func (l *Loader) Resolve(nameOrFile string) (*sandbox.Profile, error) {
	p, _, err := l.resolve(nameOrFile)
	return p, err
}

// resolve is Resolve, returning also the parse cache it went through (nil
// when l has none), which tells whether every file came from the cache.
func (l *Loader) resolve(nameOrFile string) (*sandbox.Profile, *parseMemo, error) {
	m := l.memo(nameOrFile)
	defer m.store()
	f, at, err := l.open(nameOrFile, m)
	if err != nil {
		return nil, m, err
	}
	p, err := l.resolveFile(nameOrFile, f, at, m)
	return p, m, err
}

func (l *Loader) resolveFile(name string, f *File, at where, m *parseMemo) (*sandbox.Profile, error) {
	chain := []*File{f}
	seen := map[where]bool{at: true}
	for cur, curAt := f, at; cur.Extends != nil; {
		parent := *cur.Extends
		// The position is found only for an error: finding it parses
		// the source again, which a start that succeeds need not do.
		here := cur
		errorf := func(format string, args ...any) error {
			return errorAt(here.Name, here.Pos("extends"), format, args...)
		}
		if IsFile(parent) || !validName(parent) {
			return nil, errorf("extends: want a profile name, got %q", parent)
		}
		// A profile extending its own name means the one it replaces, in
		// a lower layer or built in.
		below := len(l.Dirs)
		if curAt.layer < len(l.Dirs) && profileName(curAt) == parent {
			below = curAt.layer
		}
		pf, pat, err := l.find(parent, below, m)
		if err != nil {
			var nf *notFound
			if errors.As(err, &nf) {
				return nil, errorf("extends: unknown profile %q", parent)
			}
			return nil, err
		}
		if seen[pat] {
			return nil, errorf("extends: cycle through %q", parent)
		}
		if len(chain) >= maxExtends {
			return nil, errorf("extends: chain longer than %d", maxExtends)
		}
		seen[pat] = true
		chain = append(chain, pf)
		cur, curAt = pf, pat
	}
	merged := chain[len(chain)-1]
	src := source{}
	src.note(merged)
	for i := len(chain) - 2; i >= 0; i-- {
		merged = over(merged, chain[i])
		src.note(chain[i])
	}
	p, err := build(name, merged, src, &l.Vars)
	if p != nil && l.CacheDir != "" && l.CacheBuild != "" {
		// Where the parsed files are kept, under the same conditions
		// (no managed layer, caches on): the seccomp program follows
		// from the profile as the parse from the files.
		p.BuildCache = sandbox.BuildCache{Dir: l.CacheDir, Build: l.CacheBuild}
	}
	return p, err
}

// profileName is the name of the profile stored at w.
func profileName(w where) string {
	return strings.TrimSuffix(filepath.Base(w.path), ".toml")
}

// notFound is returned by find for a name no layer holds.
type notFound struct{ name string }

func (e *notFound) Error() string { return fmt.Sprintf("unknown profile %q", e.name) }

// open parses the profile nameOrFile, through m (nil is no cache).
func (l *Loader) open(nameOrFile string, m *parseMemo) (*File, where, error) {
	if IsFile(nameOrFile) {
		f, err := l.readFile(nameOrFile, m)
		return f, where{layer: len(l.Dirs), path: nameOrFile}, err
	}
	if !validName(nameOrFile) {
		return nil, where{}, fmt.Errorf("bad profile name %q", nameOrFile)
	}
	f, at, err := l.find(nameOrFile, len(l.Dirs), m)
	if err != nil {
		var nf *notFound
		if errors.As(err, &nf) {
			return nil, where{}, fmt.Errorf("%w (known: %s)", err, strings.Join(l.names(), ", "))
		}
	}
	return f, at, err
}

// find returns the profile name from the highest layer below index below,
// else the built-in, parsing through m (nil is no cache).
func (l *Loader) find(name string, below int, m *parseMemo) (*File, where, error) {
	for i := below - 1; i >= 0; i-- {
		p := filepath.Join(l.Dirs[i], name+".toml")
		f, err := l.readFile(p, m)
		if err == nil {
			return f, where{layer: i, path: p}, nil
		}
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
			return nil, where{}, err
		}
	}
	if src, ok := builtinSrc(name); ok {
		w := where{layer: -1, path: "builtin/" + name + ".toml"}
		f, err := m.parse(w.path, src)
		return f, w, err
	}
	return nil, where{}, &notFound{name}
}

// readFile parses the profile file at p, through m (nil is no cache).
func (l *Loader) readFile(p string, m *parseMemo) (*File, error) {
	src, err := l.files().ReadFile(p, MaxFileSize)
	if err != nil {
		return nil, &Error{File: p, Err: err}
	}
	return m.parse(p, src)
}

// Info describes one profile List found.
type Info struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source is the file the profile comes from, or "built-in".
	Source string `json:"source"`
	// Overrides is the Source of the profile of the same name this one
	// replaces, or "" when it replaces none.
	Overrides string `json:"overrides,omitempty"`
}

// List returns every profile visible through the layers, sorted by name.
// A file that does not parse is an error: list must not hide a profile
// that would fail when used.
func (l *Loader) List() ([]Info, error) {
	byName := map[string]*Info{}
	for _, n := range BuiltinNames() {
		src, _ := builtinSrc(n)
		f, err := Parse("builtin/"+n+".toml", src)
		if err != nil {
			return nil, err
		}
		byName[n] = &Info{Name: n, Description: deref(f.Description), Source: builtinSource}
	}
	for _, dir := range l.Dirs {
		ents, err := l.files().ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("profile directory %s: %w", dir, err)
		}
		for _, e := range ents {
			n, ok := strings.CutSuffix(e.Name(), ".toml")
			if !ok || !validName(n) || e.IsDir() {
				continue
			}
			p := filepath.Join(dir, e.Name())
			f, err := l.readFile(p, nil)
			if err != nil {
				return nil, err
			}
			info := &Info{Name: n, Description: deref(f.Description), Source: p}
			if prev := byName[n]; prev != nil {
				info.Overrides = prev.Source
				if f.Description == nil && f.Extends != nil && *f.Extends == n {
					info.Description = prev.Description
				}
			}
			byName[n] = info
		}
	}
	out := make([]Info, 0, len(byName))
	for _, i := range byName {
		out = append(out, *i)
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// files returns what l reads profiles from.
func (l *Loader) files() snapshot.FS {
	if l.Files == nil {
		return snapshot.Disk{}
	}
	return l.Files
}

func (l *Loader) names() []string {
	infos, err := l.List()
	if err != nil {
		return BuiltinNames()
	}
	var names []string
	for _, i := range infos {
		names = append(names, i.Name)
	}
	return names
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
