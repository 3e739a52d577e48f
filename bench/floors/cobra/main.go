// Command cobra is a floor for `gatedexec version` in make bench: an
// otherwise empty program whose only work is cobra running one version
// command, built as gatedexec is. What gatedexec costs beyond it is its
// own start-up.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	// Started as gatedexec starts.
	_ "github.com/gatedexec/gatedexec/internal/oneproc"
)

func main() {
	root := &cobra.Command{Use: "floor", SilenceUsage: true}
	root.AddCommand(&cobra.Command{Use: "version", Run: func(*cobra.Command, []string) { fmt.Println("floor") }})
	if root.Execute() != nil {
		os.Exit(1)
	}
}
