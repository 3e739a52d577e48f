package darwin

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/sandbox"
)

// Resolver maps an absolute path to the form the macOS sandbox compares
// against: Seatbelt matches the vnode's real path, so a rule for a
// symlinked path would never match.
type Resolver func(path string) (string, error)

// HostResolver canonicalises path on this host: sandbox.RealPath resolves
// its longest existing prefix and keeps the rest (which may not exist yet,
// e.g. a protect path), and the /tmp, /var and /etc symlinks are mapped to
// /private.
func HostResolver(path string) (string, error) {
	if _, err := Lexical(path); err != nil {
		return "", err
	}
	real, err := sandbox.RealPath(filepath.Clean(path))
	if err != nil {
		return "", fmt.Errorf("canonicalise %q: %w", path, err)
	}
	return Lexical(real)
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
