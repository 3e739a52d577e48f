package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The command line is flags, a call of the engine and output (DESIGN §1):
// it imports the engine, configuration and profile loading and output
// helpers, and none of the packages that decide (the policy, approval,
// the sandbox and its backends), so no decision can be made here.
func TestCommandImportsOnlyTheEngine(t *testing.T) {
	allowed := map[string]bool{
		"github.com/gatedexec/gatedexec/gate": true,
		// Reads audit logs and prints them; it decides nothing.
		"github.com/gatedexec/gatedexec/auditlog":            true,
		"github.com/gatedexec/gatedexec/config":              true,
		"github.com/gatedexec/gatedexec/profiles":            true,
		"github.com/gatedexec/gatedexec/internal/atomicfile": true,
		"github.com/gatedexec/gatedexec/internal/snapshot":   true,
		// Ends the process; it decides nothing.
		"github.com/gatedexec/gatedexec/internal/exitunmap": true,
		// Starts the Go runtime with one processor and gives the
		// process's CPUs back; it decides nothing.
		"github.com/gatedexec/gatedexec/internal/oneproc": true,
		// The agent front ends (hook, hooks, mcp) are callers of gate
		// like run and check; their own tests keep them free of policy
		// decisions, and the commands here only wire them to flags.
		"github.com/gatedexec/gatedexec/integrations/hook":  true,
		"github.com/gatedexec/gatedexec/integrations/hooks": true,
		"github.com/gatedexec/gatedexec/integrations/mcp":   true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/gatedexec/gatedexec/") && !allowed[path] {
				t.Errorf("%s imports %s; go through package gate", name, path)
			}
		}
	}
}
