package integrations

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The front ends are callers of the engine (DESIGN §1, §10): they may use
// its vocabulary (approval requests, sandbox denials as types) but never
// the policy or a sandbox backend, so that no front end decides on its
// own or runs a command around the engine.
func TestFrontEndsCallTheEngine(t *testing.T) {
	forbidden := []string{
		"github.com/gatedexec/gatedexec/execpolicy",
		"github.com/gatedexec/gatedexec/sandbox/",
		"github.com/gatedexec/gatedexec/profiles",
		"github.com/gatedexec/gatedexec/config",
		"os/exec",
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if p == bad || strings.HasPrefix(p, bad) && strings.HasSuffix(bad, "/") {
					if p == "os/exec" && path == "guard.go" {
						// LookPath only: naming the program a command runs.
						continue
					}
					t.Errorf("%s imports %s: go through package gate", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
