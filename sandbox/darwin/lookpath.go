package darwin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/sandbox"
)

// pathOf returns PATH from env, or the POSIX default when unset.
func pathOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return "/usr/bin:/bin:/usr/sbin:/sbin"
}

// lookPath resolves name as execvp would with the command's own PATH, so
// that "not found" (127) and "cannot execute" (126) are told apart before
// anything runs.
func lookPath(name, path, dir string) (string, error) {
	check := func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%s: %w", name, sandbox.ErrNotFound)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s: %w", name, sandbox.ErrCannotExec)
		}
		return nil
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if err := check(p); err != nil {
			return "", err
		}
		return filepath.Abs(p)
	}
	var firstErr error
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue // a relative PATH entry would depend on the cwd: skip it
		}
		p := filepath.Join(d, name)
		err := check(p)
		if err == nil {
			return p, nil
		}
		if firstErr == nil && errors.Is(err, sandbox.ErrCannotExec) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return "", firstErr
	}
	return "", fmt.Errorf("%s: %w", name, sandbox.ErrNotFound)
}
