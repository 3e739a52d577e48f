package main

import (
	"os/exec"
	"strings"
	"testing"
)

// startupCost lists modules whose package-level work (an init function, a
// variable initialised by a call) costs every gatedexec start before main
// runs, on the run, sandbox, check and hook paths too, and why they must
// not be linked again.
var startupCost = map[string]string{
	"github.com/BurntSushi/toml": "its init calls time.Now().Zone(), which opens and reads /etc/localtime at every start",
}

// The binary, in both of its builds, links none of them.
func TestNoStartupCostInDependencies(t *testing.T) {
	for _, tags := range []string{"", "gatedexec_mcp"} {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, ".").Output()
		if err != nil {
			t.Fatalf("go list -deps -tags %q: %v", tags, err)
		}
		deps := strings.Fields(string(out))
		if !strings.Contains(string(out), "github.com/gatedexec/gatedexec/config\n") {
			t.Fatalf("go list -deps -tags %q lists no gatedexec package: %q", tags, deps)
		}
		for _, pkg := range deps {
			for mod, why := range startupCost {
				if pkg == mod || strings.HasPrefix(pkg, mod+"/") {
					t.Errorf("the build with tags %q links %s: %s", tags, pkg, why)
				}
			}
		}
	}
}
