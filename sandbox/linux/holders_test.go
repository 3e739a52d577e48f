//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestHoldMountsConcurrent plans and releases the mounts of many runs at
// once in one workspace without .git, as 200 concurrent `gatedexec run`s
// do: a run ending removes the holders it made while others are planning
// around them. No run may fail, every target a run holds must exist while
// it holds it, and once all have ended no holder is left behind.
func TestHoldMountsConcurrent(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Profile{
		Name:  "workspace-write",
		Write: []string{ws},
		Protect: []string{
			filepath.Join(ws, ".git", "hooks"),
			filepath.Join(ws, ".git", "config"),
			filepath.Join(ws, ".gatedexec"),
		},
	}
	const workers, runs = 16, 150
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range runs {
				ops, hold, err := holdMounts(p, "")
				if err != nil {
					errs <- err
					return
				}
				for _, op := range ops {
					if op.Kind != mountReadOnly {
						continue
					}
					if _, err := os.Lstat(op.Path); err != nil {
						errs <- err
						hold.release(true)
						return
					}
				}
				hold.release(true)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if entries, err := os.ReadDir(ws); err != nil || len(entries) != 0 {
		t.Errorf("workspace holds %v (%v) after every run ended, want nothing", entries, err)
	}
}
