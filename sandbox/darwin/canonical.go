package darwin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Resolver maps an absolute path to the form the macOS sandbox compares
// against: Seatbelt matches the vnode's real path, so a rule for a
// symlinked path would never match.
type Resolver func(path string) (string, error)

// HostResolver canonicalises path on this host: the longest existing
// prefix is resolved with filepath.EvalSymlinks, the rest (which may not
// exist yet, e.g. a protect path) is appended unchanged, and the /tmp,
// /var and /etc symlinks are mapped to /private.
func HostResolver(path string) (string, error) {
	if _, err := Lexical(path); err != nil {
		return "", err
	}
	p := filepath.Clean(path)
	existing, rest := p, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return Lexical(p)
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("canonicalise %q: %w", path, err)
	}
	return Lexical(filepath.Join(real, rest))
}

// privateLinks are the top-level symlinks into /private that every macOS
// install has.
var privateLinks = [...]string{"/tmp", "/var", "/etc"}

// Lexical cleans path and maps /tmp, /var and /etc to their /private
// targets without touching the filesystem. It rejects relative paths and
// paths holding a NUL byte, which no argv entry can carry.
func Lexical(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("path %q is not absolute", path)
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("path %q holds a NUL byte", path)
	}
	p := filepath.Clean(path)
	for _, l := range privateLinks {
		if p == l || strings.HasPrefix(p, l+"/") {
			return "/private" + p, nil
		}
	}
	return p, nil
}
