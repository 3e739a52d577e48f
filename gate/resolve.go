package gate

import (
	"errors"
	"os"
	"path/filepath"
)

// maxLinks bounds the links one resolution follows, as the kernel's
// ELOOP does (and filepath.EvalSymlinks, at 255).
const maxLinks = 255

var errTooManyLinks = errors.New("too many links")

// resolver resolves the links of absolute paths as filepath.EvalSymlinks
// does, remembering every directory it resolved. The dozen control paths
// of a call share most of their directories (/tmp, the home, its
// .config, .cache and .local): walked one by one, each path cost an lstat
// of every directory above it, about 300 system calls a call. A resolver
// lives for one call: what it remembers is the file system at that moment.
type resolver struct {
	memo map[string]resolution
}

type resolution struct {
	real string
	err  error
}

func newResolver() *resolver { return &resolver{memo: map[string]resolution{}} }

// existing resolves the symlinks of the longest prefix of the absolute
// path p that resolves, so that it compares with the profile's resolved
// paths; the rest is kept as written.
func (r *resolver) existing(p string) string {
	rest := ""
	for dir := filepath.Clean(p); ; dir = filepath.Dir(dir) {
		if real, err := r.eval(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// eval is filepath.EvalSymlinks of the clean absolute path p.
func (r *resolver) eval(p string) (string, error) {
	links := 0
	return r.evalCounting(p, &links)
}

func (r *resolver) evalCounting(p string, links *int) (string, error) {
	if p == "/" {
		return p, nil
	}
	if res, ok := r.memo[p]; ok {
		return res.real, res.err
	}
	real, err := r.step(p, links)
	if !errors.Is(err, errTooManyLinks) {
		// Too many links is the count of this resolution, not a fact
		// about p.
		r.memo[p] = resolution{real, err}
	}
	return real, err
}

// step resolves p's last name in its resolved parent, following a link:
// a relative target is relative to that parent, which holds no link, so
// its ".." is lexical as EvalSymlinks makes it.
func (r *resolver) step(p string, links *int) (string, error) {
	parent, err := r.evalCounting(filepath.Dir(p), links)
	if err != nil {
		return "", err
	}
	name := filepath.Join(parent, filepath.Base(p))
	fi, err := os.Lstat(name)
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return name, nil
	}
	if *links++; *links > maxLinks {
		return "", &os.PathError{Op: "resolve", Path: p, Err: errTooManyLinks}
	}
	target, err := os.Readlink(name)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(parent, target)
	}
	return r.evalCounting(filepath.Clean(target), links)
}
