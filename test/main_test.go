// Package test holds end-to-end tests of the built gatedexec binary: CLI
// scripts (testscript), the sandbox escape suite and the corpus runner.
package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/internal/oneproc"
)

// binDir is the directory holding the gatedexec binary built for this test run.
var binDir string

// gatedexecBin is the path of that binary.
var gatedexecBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// runMain builds the binary, or with GATEDEXEC_BIN set (as `make test`
// does) uses that one, so the tests run what `make build` ships.
func runMain(m *testing.M) int {
	if bin := os.Getenv("GATEDEXEC_BIN"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err == nil && filepath.Base(abs) != "gatedexec" {
			err = fmt.Errorf("%s: the binary must be named gatedexec (the CLI scripts run it by name)", bin)
		}
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err == nil {
			// `gatedexec mcp` becomes the server beside it.
			_, err = os.Stat(filepath.Join(filepath.Dir(abs), "gatedexec-mcp"))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "GATEDEXEC_BIN:", err)
			return 1
		}
		binDir, gatedexecBin = filepath.Dir(abs), abs
		return runTests(m)
	}
	dir, err := os.MkdirTemp("", "gatedexec-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	gatedexecBin = filepath.Join(dir, "gatedexec")
	// As `make build` does, with the dependencies and the Go standard
	// library scripts/depatch patches.
	depatch := exec.Command("go", "run", "./scripts/depatch")
	depatch.Dir, depatch.Stderr = "..", os.Stderr
	flags, err := depatch.Output()
	modfile, overlay, ok := strings.Cut(strings.TrimSpace(string(flags)), "\n")
	if err != nil || !ok {
		fmt.Fprintf(os.Stderr, "scripts/depatch: %q, %v\n", flags, err)
		return 1
	}
	mod := "-modfile=" + modfile
	ovl := "-overlay=" + overlay
	// With one processor and its entry point where it has one, as `make
	// build` links it.
	ldflags := "-ldflags=" + oneproc.RuntimeFlag
	if oneproc.EntrySymbol != "" {
		ldflags += " -E " + oneproc.EntrySymbol
	}
	for _, b := range [][]string{
		{"build", mod, ovl, ldflags, "-o", gatedexecBin, "../cmd/gatedexec"},
		{"build", mod, ovl, ldflags, "-tags", "gatedexec_mcp", "-o", filepath.Join(dir, "gatedexec-mcp"), "../cmd/gatedexec"},
	} {
		build := exec.Command("go", b...)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building gatedexec:", err)
			return 1
		}
	}
	return runTests(m)
}

// runTests runs the tests and removes what they made once for the whole
// binary (the execution oracle's directory).
func runTests(m *testing.M) int {
	defer func() {
		if theOracle != nil {
			os.RemoveAll(theOracle.dir)
		}
	}()
	return m.Run()
}
