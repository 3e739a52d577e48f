package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultPath is the search path of a command whose environment has no
// PATH, as execvp uses one.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// LookPath resolves argv0 the way execvp would with env's PATH (the last
// PATH= entry wins, DefaultPath when there is none), so that "not found"
// (ErrNotFound, exit 127) and "cannot execute" (ErrCannotExec, exit 126)
// are told apart before anything runs. Relative names and relative PATH
// entries (an empty one is ".") are taken against dir, the command's
// working directory, not gatedexec's: every backend resolves them the same.
func LookPath(argv0, dir string, env []string) (string, error) {
	if strings.Contains(argv0, "/") {
		path := argv0
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		if err := checkExec(path); err != nil {
			return "", fmt.Errorf("%s: %w", argv0, err)
		}
		return path, nil
	}
	pathEnv := DefaultPath
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	// Each directory that has no argv0 is a miss, not an error: one is
	// made only for what is returned, the first that is not a miss.
	why := ErrNotFound
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		path := filepath.Join(d, argv0)
		err := checkExec(path)
		if err == nil {
			return path, nil
		}
		if why == ErrNotFound {
			why = err
		}
	}
	return "", fmt.Errorf("%s: %w", argv0, why)
}

// checkExec says whether path is a file that can be executed: nil,
// ErrNotFound or ErrCannotExec.
func checkExec(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return ErrNotFound
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return ErrCannotExec
	}
	return nil
}
