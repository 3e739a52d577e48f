// Command regexp links regexp and nothing else of note, for
// TestStdLookups: whether unicode's and regexp/syntax's maps are built at
// its start is in its symbols.
package main

import (
	"os"
	"regexp"
)

func main() {
	if len(os.Args) == 3 {
		if regexp.MustCompile(os.Args[1]).MatchString(os.Args[2]) {
			os.Stdout.WriteString("match\n")
		}
	}
}
