// Command fakebash stands in for bash first in a test's PATH: it says on
// stderr that it ran and executes the real bash with the same arguments.
// It is an ELF program, as gatedexec wants a bash it may skip to be.
package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	fmt.Fprintln(os.Stderr, "BASH-RAN")
	for _, bash := range []string{"/usr/bin/bash", "/bin/bash"} {
		if _, err := os.Stat(bash); err == nil {
			err := syscall.Exec(bash, os.Args, os.Environ())
			fmt.Fprintln(os.Stderr, "fakebash:", err)
			os.Exit(126)
		}
	}
	fmt.Fprintln(os.Stderr, "fakebash: no bash")
	os.Exit(127)
}
